/*
 * TEST FAKE of Nuvei's Web SDK (docs.nuvei.com, "Quick Start for Web SDK" and "Nuvei Fields"),
 * served by playwright in place of
 * https://cdn.safecharge.com/safecharge_resources/v1/websdk/safecharge.js. The surface payhub's
 * driver uses: SafeCharge({env, merchantId, merchantSiteId}) -> {fields(options) ->
 * {create("card", options) -> {attach(selector)}}, getToken(card, {sessionToken,
 * cardHolderName}) -> Promise<{status: "SUCCESS", ccTempToken} | {status: "ERROR", reason}>}.
 * The card field is an iframe on cdn.safecharge.com (frame-src); getToken posts the card with
 * the session to a stand-in path on the integration API host (connect-src).
 */
(function () {
  "use strict";
  var CDN = "https://cdn.safecharge.com";
  window.SafeCharge = function (options) {
    if (!options || !options.merchantId || !options.merchantSiteId) throw new Error("SafeCharge: merchantId and merchantSiteId are required");
    var api = options.env === "int" ? "https://ppp-test.nuvei.com" : "https://secure.safecharge.com";
    var values = {card: ""};
    window.addEventListener("message", function (event) {
      var d = event.data;
      if (event.origin === CDN && d && d.fakeField && !d.loaded) values[d.field] = d.value.replace(/\s/g, "");
    });
    return {
      fields: function () {
        return {
          create: function (type) {
            return {
              attach: function (selector) {
                var el = document.querySelector(selector);
                if (!el) throw new Error("Nuvei Fields: no element " + selector);
                var frame = document.createElement("iframe");
                frame.title = type;
                frame.src = CDN + "/safecharge_resources/v1/websdk/fields.html#" + type;
                el.appendChild(frame);
              }
            };
          }
        };
      },
      getToken: function (card, params) {
        if (!params || !params.sessionToken) return Promise.resolve({status: "ERROR", reason: "sessionToken is required"});
        if (!/^\d{13,19}$/.test(values.card)) return Promise.resolve({status: "ERROR", reason: "Invalid card number"});
        return fetch(api + "/ppp/api/v1/fakeFieldsToken.do", {
          method: "POST",
          headers: {"Content-Type": "application/json"},
          body: JSON.stringify({merchantId: options.merchantId, merchantSiteId: options.merchantSiteId,
                                sessionToken: params.sessionToken, cardHolderName: params.cardHolderName,
                                number: values.card})
        }).then(function (r) { return r.json(); });
      }
    };
  };
})();
