/* payhub schedule approval page: tokenize the payment method with the hosted fields, then
 * submit the form. Only the token leaves the page; the fields have no name attribute. */
(function () {
  "use strict";
  var form = document.getElementById("approve-form");
  var mount = document.getElementById("card-fields");
  if (!form || !mount || !window.PayHubSimulator) return;
  var fields = window.PayHubSimulator.createFields(mount, {type: "card", idPrefix: "approve"});
  var error = document.getElementById("approve-error");
  var button = document.getElementById("approve-button");
  var submitting = false;
  form.addEventListener("submit", function (event) {
    if (document.getElementById("payment-method-token").value) return;
    event.preventDefault();
    if (submitting) return;
    submitting = true;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    error.hidden = true;
    fields.tokenize().then(function (result) {
      document.getElementById("payment-method-token").value = result.token;
      document.getElementById("method-type").value = result.type;
      form.submit();
    }, function (problem) {
      error.textContent = problem.message || "Check your payment details.";
      error.hidden = false;
      submitting = false;
      button.disabled = false;
      button.removeAttribute("aria-busy");
    });
  });
})();
