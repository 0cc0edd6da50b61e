/*
 * TEST FAKE of the Clover iframe SDK (https://docs.clover.com/docs/using-the-clover-hosted-iframe,
 * https://docs.clover.com/docs/clover-iframe-features), served by playwright in place of
 * https://checkout.sandbox.dev.clover.com/sdk.js. The surface payhub's driver uses:
 * new Clover(apiAccessKey, {merchantId}) -> {elements() -> {create(TYPE) -> {mount(selector)}},
 * createToken()}. Each element is an iframe on checkout.sandbox.dev.clover.com (frame-src);
 * createToken() resolves {token: "clv_...", card} or {errors: {CARD_NUMBER: "...", ...}} for
 * empty or invalid elements; the token comes from a POST to
 * https://token-sandbox.dev.clover.com/v1/tokens with the key in the apikey header (connect-src).
 */
(function () {
  "use strict";
  var FRAMES = "https://checkout.sandbox.dev.clover.com";
  var CHECKS = {CARD_NUMBER: /^\d{13,19}$/, CARD_DATE: /^(0[1-9]|1[0-2])\/?\d{2}(\d{2})?$/,
                CARD_CVV: /^\d{3,4}$/, CARD_POSTAL_CODE: /^\d{5}(-\d{4})?$/};
  window.Clover = function (apiAccessKey, options) {
    if (!apiAccessKey) throw new Error("Clover: apiAccessKey is required");
    if (!options || !options.merchantId) throw new Error("Clover: merchantId is required");
    var values = {}, mounted = [];
    window.addEventListener("message", function (event) {
      var d = event.data;
      if (event.origin === FRAMES && d && d.fakeField && !d.loaded) values[d.field] = d.value.replace(/\s/g, "");
    });
    this.elements = function () {
      return {
        create: function (type) {
          if (!CHECKS[type]) throw new Error("Clover: unknown element " + type);
          return {
            mount: function (selector) {
              var el = document.querySelector(selector);
              if (!el) throw new Error("Clover: no element " + selector);
              var frame = document.createElement("iframe");
              frame.title = type;
              frame.src = FRAMES + "/elements/element.html#" + type;
              el.appendChild(frame);
              mounted.push(type);
            }
          };
        }
      };
    };
    this.createToken = function () {
      var errors = {};
      mounted.forEach(function (type) {
        var v = values[type] || "";
        if (!v) errors[type] = "is required";
        else if (!CHECKS[type].test(v)) errors[type] = "is invalid";
      });
      if (Object.keys(errors).length) return Promise.resolve({errors: errors});
      var date = values.CARD_DATE.replace("/", "");
      return fetch("https://token-sandbox.dev.clover.com/v1/tokens", {
        method: "POST",
        headers: {"apikey": apiAccessKey, "Content-Type": "application/json"},
        body: JSON.stringify({card: {number: values.CARD_NUMBER, exp_month: date.slice(0, 2),
                                     exp_year: "20" + date.slice(-2), cvv: values.CARD_CVV,
                                     address_zip: values.CARD_POSTAL_CODE}})
      }).then(function (r) { return r.json(); }).then(function (body) {
        if (body.id) return {token: body.id, card: body.card};
        return {errors: {CARD_NUMBER: (body.error && body.error.message) || "is invalid"}};
      });
    };
  };
})();
