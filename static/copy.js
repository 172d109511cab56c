// @ts-check
// A "Copy" button on every <pre data-copy> (launch commands, badge snippets): it copies the text of
// the <code> inside, as the page shows it at that moment (the workbench rewrites commands), and says
// so for two seconds. The words come from the nearest element above with data-copy-label and
// data-copied-label (one per section, not one per block).

for (const pre of /** @type {NodeListOf<HTMLPreElement>} */ (document.querySelectorAll("pre[data-copy]"))) {
  const words = /** @type {HTMLElement | null} */ (pre.closest("[data-copy-label]"));
  const copy = words?.dataset.copyLabel || "Copy";
  const copied = words?.dataset.copiedLabel || "Copied";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "copy";
  button.textContent = copy;
  /** @type {number | undefined} */
  let timer;
  button.addEventListener("click", async () => {
    const code = pre.querySelector("code");
    await navigator.clipboard.writeText((code || pre).textContent || "");
    button.textContent = copied;
    clearTimeout(timer);
    timer = setTimeout(() => { button.textContent = copy; }, 2000);
  });
  pre.append(button);
}
