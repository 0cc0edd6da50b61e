/*
 * TEST FAKE of globalpayments.js as Heartland and Global Payments document it
 * (https://developer.heartlandpaymentsystems.com/documentation/tokenization,
 * https://developer.globalpay.com/ecommerce/hosted-fields), served by playwright in place of
 * https://js.globalpay.com/v1/globalpayments.js. The surface payhub's drivers use:
 * GlobalPayments.configure({publicApiKey}) (Heartland) or ({accessToken, apiVersion, env})
 * (GP-API, whose token is made on apis.sandbox.globalpay.com/ucp/payment-methods with the
 * bearer access token); GlobalPayments.ui.form({fields:
 * {"card-number", "card-expiration", "card-cvv", "submit": {target, value}}}) -> form with
 * on("token-success" | "token-error", handler). Each field is an iframe on js.globalpay.com
 * (frame-src); a click on the hosted submit frame posts the card to Heartland's single-use
 * token service on the certification host (connect-src) and fires token-success with
 * {paymentReference, details: {cardLast4}} or token-error with {reasons: [{code, message}]}.
 */
(function () {
  "use strict";
  var HOST = "https://js.globalpay.com";
  var TOKEN_URL = "https://cert.api2.heartlandportico.com/Hps.Exchange.PosGateway.Hpf.v1/api/token";
  var GP_API = {sandbox: "https://apis.sandbox.globalpay.com", production: "https://apis.globalpay.com"};
  var settings = {};
  window.GlobalPayments = {
    configure: function (s) { settings = s || {}; },
    ui: {
      form: function (options) {
        if (!settings.publicApiKey && !settings.accessToken) throw new Error("GlobalPayments: configure() first");
        var values = {}, handlers = {};
        function fire(name, payload) { (handlers[name] || []).forEach(function (h) { h(payload); }); }
        Object.keys(options.fields).forEach(function (name) {
          var f = options.fields[name];
          var el = document.querySelector(f.target);
          if (!el) throw new Error("GlobalPayments: no element " + f.target);
          var frame = document.createElement("iframe");
          frame.title = name;
          frame.src = name === "submit" ? HOST + "/v1/submit.html#" + encodeURIComponent(f.value || "Submit")
                                        : HOST + "/v1/field.html#" + name;
          el.appendChild(frame);
        });
        window.addEventListener("message", function (event) {
          var d = event.data;
          if (event.origin !== HOST || !d) return;
          if (d.fakeField && !d.loaded) values[d.field] = d.value.replace(/\s/g, "");
          if (!d.fakeSubmit) return;
          var number = values["card-number"] || "";
          if (!/^\d{13,19}$/.test(number)) {
            fire("token-error", {error: true, reasons: [{code: "INVALID_CARD_NUMBER", message: "The card number is not valid."}]});
            return;
          }
          var card = {number: number, exp: values["card-expiration"] || "", cvc: values["card-cvv"] || ""};
          var sent = settings.accessToken
            ? fetch(GP_API[settings.env] + "/ucp/payment-methods", {
                method: "POST",
                headers: {"Content-Type": "application/json", "X-GP-Version": settings.apiVersion,
                          "Authorization": "Bearer " + settings.accessToken},
                body: JSON.stringify({usage_mode: "SINGLE", card: card})
              })
            : fetch(TOKEN_URL + "?api_key=" + encodeURIComponent(settings.publicApiKey), {
                method: "POST",
                headers: {"Content-Type": "application/json"},
                body: JSON.stringify({object: "token", token_type: "supt", card: card})
              });
          sent.then(function (r) { return r.json(); }).then(function (body) {
            var made = body.token_value || body.id;
            if (made) {
              fire("token-success", {paymentReference: made, details: {cardLast4: number.slice(-4)}});
            } else {
              fire("token-error", {error: true, reasons: [{code: "ERROR", message: (body.error && body.error.message) || "Tokenization failed."}]});
            }
          });
        });
        return {on: function (name, h) { (handlers[name] = handlers[name] || []).push(h); }};
      }
    }
  };
})();
