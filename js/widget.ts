// Placeholder entry until the picker lands.
export default {
  render({ el }: { el: HTMLElement }): () => void {
    el.textContent = "interrupt-widget";
    return () => {};
  },
};
