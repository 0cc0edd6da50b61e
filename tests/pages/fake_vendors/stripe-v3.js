/*
 * TEST FAKE of Stripe.js v3 (https://docs.stripe.com/js), served by playwright in place of
 * https://js.stripe.com/v3/. Same global surface payhub's driver uses: Stripe(pk) ->
 * {elements() -> {create("card") -> {mount(el)}}, createPaymentMethod({type, card})}. The card
 * element is an iframe on js.stripe.com (so the page's frame-src matters); createPaymentMethod
 * POSTs to https://api.stripe.com/v1/payment_methods from the page (connect-src) and resolves
 * {paymentMethod: {id: "pm_...", card: {last4}}} or {error: {message}} like Stripe.js.
 */
(function () {
  "use strict";
  window.Stripe = function (key) {
    if (!/^pk_(test|live)_/.test(key || "")) throw new Error("Invalid API Key provided: " + key);
    var number = "";
    window.addEventListener("message", function (event) {
      if (event.origin === "https://js.stripe.com" && event.data && event.data.fakeStripeCard) {
        number = event.data.number;
      }
    });
    return {
      elements: function () {
        return {
          create: function (type) {
            if (type !== "card") throw new Error("unsupported element " + type);
            return {
              mount: function (target) {
                var el = typeof target === "string" ? document.querySelector(target) : target;
                var frame = document.createElement("iframe");
                frame.title = "Secure card payment input frame";
                frame.src = "https://js.stripe.com/v3/elements-inner-card.html";
                el.appendChild(frame);
              }
            };
          }
        };
      },
      createPaymentMethod: function (params) {
        if (!params || params.type !== "card" || !params.card) {
          return Promise.reject(new Error("IntegrationError: createPaymentMethod needs type and card"));
        }
        if (!number) return Promise.resolve({error: {type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete."}});
        return fetch("https://api.stripe.com/v1/payment_methods", {
          method: "POST",
          headers: {"Authorization": "Bearer " + key, "Content-Type": "application/x-www-form-urlencoded"},
          body: "type=card&card[number]=" + encodeURIComponent(number)
        }).then(function (r) { return r.json(); }).then(function (body) {
          return body.error ? {error: body.error} : {paymentMethod: body};
        });
      }
    };
  };
})();
