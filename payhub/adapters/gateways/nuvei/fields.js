/*
 * payhub hosted-fields driver for Nuvei: the Web SDK's Nuvei Fields
 * (https://docs.nuvei.com/documentation/accept-payment/web-sdk/quick-start-for-web-sdk).
 *
 * config: {sdk: [".../safecharge.js"], sandbox, merchantId, merchantSiteId}.
 * SafeCharge({env: "int" | "prod", merchantId, merchantSiteId}) -> sfc; sfc.fields({}) ->
 * fields; fields.create("card", {}).attach("#box") puts Nuvei's card frame (number, expiry,
 * CVV) in the page. payhub's own "Name on card" input is Nuvei's cardHolderName (not a card
 * number). tokenize(context) first asks payhub for the session of the amount on the Pay button
 * (context.checkout() -> POST /pay/{token}/session -> payhub's Nuvei adapter, /openOrder), then
 * sfc.getToken(card, {sessionToken, cardHolderName}) -> {status: "SUCCESS", ccTempToken} or
 * {status: "ERROR", reason}. The token is "<sessionToken>|<ccTempToken>", which payhub's adapter
 * pays with /payment under that order; the server refuses it for any other amount. On the
 * approval page the session is a plain /getSessionToken one, under which the card is saved.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;

  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.nuvei = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "nuvei";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var label = document.createElement("label");
      label.className = "field-label";
      label.htmlFor = prefix + "-nv-name";
      label.textContent = "Name on card";
      var name = document.createElement("input");
      name.id = prefix + "-nv-name";
      name.setAttribute("autocomplete", "cc-name");
      el.appendChild(label);
      el.appendChild(name);
      var box = util.group(el, prefix + "-nv-card", "Card number, expiry and security code");
      var ready = util.load(config.sdk).then(function () {
        if (typeof window.SafeCharge !== "function") throw new Error(LOAD_FAILED);
        var sfc = window.SafeCharge({env: config.sandbox ? "int" : "prod",
                                     merchantId: config.merchantId, merchantSiteId: config.merchantSiteId});
        var card = sfc.fields({}).create("card", {});
        card.attach("#" + box.id);
        return {sfc: sfc, card: card};
      });
      ready.catch(function () { box.textContent = LOAD_FAILED; });
      return {
        tokenize: function (context) {
          var holder = name.value.trim();
          if (!holder) { name.focus(); return Promise.reject(new Error("Enter the name on the card.")); }
          if (!context || typeof context.checkout !== "function") {
            return Promise.reject(new Error("This page cannot start a Nuvei payment. Reload it."));
          }
          return ready.then(function (nuvei) {
            return context.checkout().then(function (made) {
              var session = made && made.sessionToken;
              if (!session) throw new Error("The payment could not be started. Try again.");
              return nuvei.sfc.getToken(nuvei.card, {sessionToken: session, cardHolderName: holder})
                .then(function (result) {
                  if (result && result.status === "SUCCESS" && result.ccTempToken) {
                    return {token: session + "|" + result.ccTempToken, type: "Card"};
                  }
                  var reason = result && (result.reason || (result.error && result.error.message));
                  throw new Error(reason || "Check the card details.");
                });
            });
          });
        }
      };
    }
  };
})();
