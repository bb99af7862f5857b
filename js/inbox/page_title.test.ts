import { afterEach, describe, expect, it } from "vitest";
import { pageTitle } from "./page_title";

const counts = (waiting: number, escalatedToMe = 0, overdue = 0) => ({ waiting, escalatedToMe, overdue });

describe("the page's one title", () => {
  const made: Array<ReturnType<typeof pageTitle>> = [];
  const inbox = (rank: number) => {
    const title = pageTitle(rank);
    made.push(title);
    return title;
  };
  afterEach(() => {
    for (const title of made.splice(0)) title.clear();
  });

  it("adds up the inboxes of the cells, which list different calls", () => {
    document.title = "pay.ipynb - JupyterLab";
    const first = inbox(0);
    const second = inbox(0);
    first.mark(counts(2));
    second.mark(counts(3, 1));
    expect(document.title).toBe("(5 waiting, 1 escalated to you) pay.ipynb - JupyterLab");
    first.clear();
    expect(document.title).toBe("(3 waiting, 1 escalated to you) pay.ipynb - JupyterLab");
    second.clear();
    expect(document.title).toBe("pay.ipynb - JupyterLab");
  });

  it("shows the sidebar's count, which includes the cells' own, and never marks twice", () => {
    document.title = "pay.ipynb - JupyterLab";
    const cell = inbox(0);
    const sidebar = inbox(1);
    cell.mark(counts(50));
    sidebar.mark(counts(51));
    expect(document.title).toBe("(51 waiting) pay.ipynb - JupyterLab");
    cell.mark(counts(49));
    expect(document.title).toBe("(51 waiting) pay.ipynb - JupyterLab");
    sidebar.clear();
    expect(document.title).toBe("(49 waiting) pay.ipynb - JupyterLab");
  });

  it("takes a title the page set since as its new base, and leaves it when done", () => {
    document.title = "pay.ipynb - JupyterLab";
    const cell = inbox(0);
    cell.mark(counts(1));
    document.title = "other.ipynb - JupyterLab"; // the person switched tabs
    cell.mark(counts(2));
    expect(document.title).toBe("(2 waiting) other.ipynb - JupyterLab");
    cell.clear();
    expect(document.title).toBe("other.ipynb - JupyterLab");
    cell.mark(counts(1));
    document.title = "third.ipynb - JupyterLab";
    cell.clear(); // a title the page set is not ours to change back
    expect(document.title).toBe("third.ipynb - JupyterLab");
  });
});
