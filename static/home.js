// @ts-check
// The home page's budget question: opens the chosen model's finder with the budget and buy/rent mode in
// its URL, which answers it at once. Without JavaScript the page's table of budgets answers instead.

const form = /** @type {HTMLFormElement | null} */ (document.getElementById("budget-form"));
if (form) {
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    // The finder opens with the speed the reader chose here (its own default otherwise).
    const query = new URLSearchParams({ budget: String(f.get("budget") || ""), mode: String(f.get("mode") || "buy") });
    const speed = String(f.get("tok_s") || "").trim();
    if (speed) query.set("tok_s", speed);
    location.href = `${form.dataset.base}${encodeURIComponent(String(f.get("model")))}/?${query}#finder`;
  });
}
export {}; // a module: its names stay its own
