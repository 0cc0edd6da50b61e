/*
 * TEST FAKE of PayPal's JavaScript SDK v5 Card Fields (developer.paypal.com, "Integrate Card
 * Fields" and "JavaScript SDK reference"), served by playwright in place of
 * https://www.paypal.com/sdk/js?client-id=...&components=card-fields. The surface payhub's
 * driver uses: paypal.CardFields({createOrder | createVaultSetupToken, onApprove, onError})
 * -> {isEligible(), NameField(), NumberField(), ExpiryField(), CVVField() each .render(selector),
 * submit() -> Promise}. Fields are iframes on www.sandbox.paypal.com (frame-src). submit()
 * refuses an invalid number (INVALID_NUMBER) without calling the merchant, else asks
 * createOrder (or createVaultSetupToken) for the id, confirms the card on it at a stand-in
 * path on www.sandbox.paypal.com (connect-src) and calls onApprove({orderID}) (or
 * {vaultSetupToken}); a refusal there goes to onError and rejects submit().
 */
(function () {
  "use strict";
  var HOST = "https://www.sandbox.paypal.com";
  var script = document.currentScript && document.currentScript.src;
  var query = script ? new URL(script).searchParams : new URLSearchParams();
  if (!query.get("client-id")) throw new Error("paypal: client-id is required");
  if ((query.get("components") || "").split(",").indexOf("card-fields") < 0) throw new Error("paypal: card-fields not loaded");
  var values = {name: "", number: "", expiry: "", cvv: ""};
  window.addEventListener("message", function (event) {
    var d = event.data;
    if (event.origin === HOST && d && d.fakeField && !d.loaded) values[d.field] = d.value;
  });
  function field(name) {
    return {
      render: function (selector) {
        var el = document.querySelector(selector);
        if (!el) return Promise.reject(new Error("CardFields: no element " + selector));
        var frame = document.createElement("iframe");
        frame.title = name;
        frame.src = HOST + "/smart/card-fields#" + name;
        el.appendChild(frame);
        return Promise.resolve();
      }
    };
  }
  window.paypal = {
    CardFields: function (options) {
      var vault = typeof options.createVaultSetupToken === "function";
      if (!vault && typeof options.createOrder !== "function") throw new Error("CardFields: createOrder is required");
      return {
        isEligible: function () { return true; },
        NameField: function () { return field("name"); },
        NumberField: function () { return field("number"); },
        ExpiryField: function () { return field("expiry"); },
        CVVField: function () { return field("cvv"); },
        submit: function () {
          var number = values.number.replace(/\s/g, "");
          if (!/^\d{13,19}$/.test(number)) return Promise.reject(new Error("INVALID_NUMBER"));
          var make = vault ? options.createVaultSetupToken : options.createOrder;
          return Promise.resolve(make()).then(function (id) {
            var path = vault ? "/v3/vault/setup-tokens/" + id + "/confirm" : "/v2/checkout/orders/" + id + "/confirm-payment-source";
            return fetch(HOST + path, {
              method: "POST",
              headers: {"Content-Type": "application/json"},
              body: JSON.stringify({clientId: query.get("client-id"), intent: query.get("intent"),
                                    currency: query.get("currency"),
                                    card: {name: values.name, number: number, expiry: values.expiry}})
            }).then(function (r) {
              return r.json().then(function (body) {
                if (!r.ok) {
                  var error = new Error(body.message || "CARD_DECLINED");
                  if (options.onError) options.onError(error);
                  throw error;
                }
                return options.onApprove(vault ? {vaultSetupToken: id} : {orderID: id});
              });
            });
          });
        }
      };
    }
  };
})();
