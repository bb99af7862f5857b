"""The notebook widgets' Python: the picker and the chat with their wire protocols, delta
batching, waiting in a cell, the built bundle's paths, and the renderers shipped with the kit.

Users import from `interrupt_widget`; these modules are the kit's own.
"""
