// Hardware picker on model pages: go to the model × hardware report.
const form = document.getElementById("hw-picker");
if (form) {
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    window.location.href = `${form.dataset.base}${form.elements.hardware.value}/`;
  });
  form.dataset.ready = "1";
}
