// @ts-check
// Hardware picker on model pages: go to the model × hardware report.
// model.html gives the form data-base (the model page's path) and a select named hardware.
/** @typedef {HTMLFormElement & { dataset: { base: string }, elements: { hardware: HTMLSelectElement } }} Picker */
const form = /** @type {Picker | null} */ (document.getElementById("hw-picker"));
if (form) {
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    window.location.href = `${form.dataset.base}${form.elements.hardware.value}/`;
  });
  form.dataset.ready = "1";
}
