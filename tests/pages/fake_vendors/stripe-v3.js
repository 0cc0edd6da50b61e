/*
 * TEST FAKE of Stripe.js v3 (https://docs.stripe.com/js), served by playwright in place of
 * https://js.stripe.com/v3/. Same global surface payhub's driver uses:
 *
 * - Stripe(pk) -> {elements() -> {create("card") -> {mount(el)}}, createPaymentMethod({type,
 *   card})}. The card element is an iframe on js.stripe.com (so the page's frame-src matters);
 *   createPaymentMethod POSTs to https://api.stripe.com/v1/payment_methods from the page
 *   (connect-src) and resolves {paymentMethod: {id: "pm_...", card: {last4}}} or {error}.
 * - The Payment Element in deferred mode ("Create a PaymentMethod with Elements",
 *   https://docs.stripe.com/js/payment_methods/create_payment_method_elements):
 *   stripe.elements({mode: "payment", amount, currency, paymentMethodTypes,
 *   paymentMethodCreation: "manual"}) -> {create("payment"), update({amount}), submit()};
 *   stripe.createPaymentMethod({elements}) is allowed only after submit() resolved without an
 *   error. The element's frame (js.stripe.com) stands in for Financial Connections: the payer
 *   picks a test account there and the frame tells this script which one, never a number.
 */
(function () {
  "use strict";
  window.Stripe = function (key) {
    if (!/^pk_(test|live)_/.test(key || "")) throw new Error("Invalid API Key provided: " + key);
    var number = "";
    var linked = null;  // the Financial Connections account the payer picked in the frame
    window.addEventListener("message", function (event) {
      if (event.origin !== "https://js.stripe.com" || !event.data) return;
      if (event.data.fakeStripeCard) number = event.data.number;
      if (event.data.fakeStripeBank) linked = event.data.account;
    });
    function frame(target, src, title) {
      var el = typeof target === "string" ? document.querySelector(target) : target;
      var f = document.createElement("iframe");
      f.title = title;
      f.src = src;
      el.appendChild(f);
    }
    function post(body) {
      return fetch("https://api.stripe.com/v1/payment_methods", {
        method: "POST",
        headers: {"Authorization": "Bearer " + key, "Content-Type": "application/x-www-form-urlencoded"},
        body: body
      }).then(function (r) { return r.json(); }).then(function (answer) {
        return answer.error ? {error: answer.error} : {paymentMethod: answer};
      });
    }
    return {
      elements: function (options) {
        if (options && options.mode) {
          if (options.mode !== "payment" || !(options.amount > 0) || !options.currency) {
            throw new Error("IntegrationError: deferred elements need mode, amount and currency");
          }
          if (options.paymentMethodCreation !== "manual") {
            throw new Error("IntegrationError: createPaymentMethod needs paymentMethodCreation: manual");
          }
          var group = {amount: options.amount, submitted: false,
                       types: options.paymentMethodTypes || ["card"]};
          group.create = function (type) {
            if (type !== "payment") throw new Error("unsupported element " + type);
            return {mount: function (target) {
              frame(target, "https://js.stripe.com/v3/elements-inner-payment.html", "Secure payment input frame");
            }};
          };
          group.update = function (changes) {
            if (changes.amount !== undefined) {
              if (!(changes.amount > 0)) throw new Error("IntegrationError: amount must be positive");
              group.amount = changes.amount;
            }
          };
          group.submit = function () {
            if (!linked) {
              return Promise.resolve({error: {type: "validation_error", message: "Link your bank account to continue."}});
            }
            group.submitted = true;
            return Promise.resolve({});
          };
          return group;
        }
        return {
          create: function (type) {
            if (type !== "card") throw new Error("unsupported element " + type);
            return {mount: function (target) {
              frame(target, "https://js.stripe.com/v3/elements-inner-card.html", "Secure card payment input frame");
            }};
          }
        };
      },
      createPaymentMethod: function (params) {
        if (params && params.elements) {
          if (!params.elements.submitted) {
            return Promise.reject(new Error("IntegrationError: elements.submit() must be called first"));
          }
          params.elements.submitted = false;
          return post("type=us_bank_account&financial_connections_account=" + encodeURIComponent(linked) +
                      "&amount=" + params.elements.amount);
        }
        if (!params || params.type !== "card" || !params.card) {
          return Promise.reject(new Error("IntegrationError: createPaymentMethod needs type and card"));
        }
        if (!number) return Promise.resolve({error: {type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete."}});
        return post("type=card&card[number]=" + encodeURIComponent(number));
      }
    };
  };
})();
