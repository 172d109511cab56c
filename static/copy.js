// @ts-check
// A "Copy" button on every <pre data-copy> (launch commands, badge snippets): it copies the text of
// the <code> inside, as the page shows it at that moment (the workbench rewrites commands), and says
// so for two seconds. The words come from the element: data-copy and data-copied.

/** @typedef {HTMLPreElement & { dataset: { copy: string, copied: string } }} Copyable */

for (const pre of /** @type {NodeListOf<Copyable>} */ (document.querySelectorAll("pre[data-copy]"))) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "copy";
  button.textContent = pre.dataset.copy;
  /** @type {number | undefined} */
  let timer;
  button.addEventListener("click", async () => {
    const code = pre.querySelector("code");
    await navigator.clipboard.writeText((code || pre).textContent || "");
    button.textContent = pre.dataset.copied;
    clearTimeout(timer);
    timer = setTimeout(() => { button.textContent = pre.dataset.copy; }, 2000);
  });
  pre.append(button);
}
