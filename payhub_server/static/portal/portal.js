document.querySelectorAll(".error-summary").forEach(function (el) { el.focus(); });
