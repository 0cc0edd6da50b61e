// The portal's one script: progressive enhancement only. Every page works without it.
document.querySelectorAll(".error-summary").forEach(function (el) { el.focus(); });

// Copy buttons beside read-only fields (the pay link, the embed code).
document.querySelectorAll("[data-copy]").forEach(function (field) {
  if (!navigator.clipboard) { return; }
  var button = document.createElement("button");
  button.type = "button";
  button.className = "copy-button";
  button.textContent = "Copy";
  var label = document.querySelector('label[for="' + field.id + '"]');
  button.setAttribute("aria-label", "Copy: " + (label ? label.textContent : "the text"));
  var said = document.createElement("span");
  said.setAttribute("role", "status");
  said.className = "hint";
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(field.value).then(function () { said.textContent = " Copied."; },
      function () { field.select(); said.textContent = " Press Ctrl+C (or Cmd+C) to copy."; });
  });
  field.insertAdjacentElement("afterend", said);
  field.insertAdjacentElement("afterend", button);
});

// A money-moving form is sent once: its button is disabled after the first submit (the
// server refuses a second sending anyway: the form carries one idempotency key).
document.querySelectorAll("form[data-once]").forEach(function (form) {
  form.addEventListener("submit", function () {
    form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = true; });
  });
});

// The invoice number format's live preview: the server's own rendering, as you type.
document.querySelectorAll("form[data-preview]").forEach(function (form) {
  var out = document.getElementById("numbering-preview");
  var format = form.querySelector("[name=format]");
  var start = form.querySelector("[name=start]");
  if (!out || !format || !window.fetch) { return; }
  var timer = null;
  function update() {
    if (!format.value.trim()) { out.textContent = ""; return; }
    var url = form.getAttribute("data-preview") + "?format=" + encodeURIComponent(format.value) +
      "&start=" + encodeURIComponent(start ? start.value : "");
    fetch(url, { credentials: "same-origin", headers: { Accept: "application/json" } })
      .then(function (r) { return r.json(); })
      .then(function (body) {
        out.textContent = body.example ? "The first invoice will be numbered " + body.example + "."
          : "Not usable yet: " + body.error;
      })
      .catch(function () { /* the Preview button still works */ });
  }
  function later() { clearTimeout(timer); timer = setTimeout(update, 250); }
  format.addEventListener("input", later);
  if (start) { start.addEventListener("input", later); }
});
