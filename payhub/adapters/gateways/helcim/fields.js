/*
 * payhub hosted-fields driver for Helcim: HelcimPay.js
 * (https://devdocs.helcim.com/docs/helcimpayjs-implementation).
 *
 * config: {sdk: ["https://secure.helcim.app/helcim-pay/services/start.js"], sandbox}. The card
 * is typed only in Helcim's modal (an iframe on secure.helcim.app), which opens when the payer
 * presses Pay: tokenize(context) asks payhub for the checkout session (context.checkout() ->
 * POST /pay/{token}/session -> payhub's Helcim adapter, POST /helcim-pay/initialize in verify
 * mode), calls appendHelcimPayIframe(checkoutToken) and waits for the modal's window message
 * {eventName: "helcim-pay-js-<checkoutToken>", eventStatus, eventMessage}: SUCCESS brings
 * {data: {cardToken, ...}, hash} (a JSON string or an object), ABORTED a reason, HIDE means the
 * payer closed it. The token is "<checkoutToken>|<cardToken>": payhub's adapter then purchases
 * (or preauthorizes) exactly the amount on the button through the Payment API; on the
 * approval page it saves the card.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;
  var ORIGIN = "https://secure.helcim.app";

  function parse(message) {
    if (typeof message !== "string") return message || {};
    try { return JSON.parse(message); } catch (e) { return {reason: message}; }
  }
  function close() {
    if (typeof window.removeHelcimPayIframe === "function") window.removeHelcimPayIframe();
  }

  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.helcim = {
    createFields: function (el, options) {
      var config = options.config || {};
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var hint = document.createElement("p");
      hint.className = "field-hint";
      hint.id = (options.idPrefix || "helcim") + "-helcim-hint";
      hint.textContent = options.save
        ? "When you press Approve, Helcim's secure window opens for your card details."
        : "When you press Pay, Helcim's secure window opens for your card details.";
      el.appendChild(hint);
      var ready = util.load(config.sdk).then(function () {
        if (typeof window.appendHelcimPayIframe !== "function") throw new Error(LOAD_FAILED);
      });
      ready.catch(function () { hint.textContent = LOAD_FAILED; });
      return {
        tokenize: function (context) {
          if (!context || typeof context.checkout !== "function") {
            return Promise.reject(new Error("This page cannot start a Helcim payment. Reload it."));
          }
          return ready.then(function () { return context.checkout(); }).then(function (made) {
            var session = made && made.checkoutToken;
            if (!session) throw new Error("The payment could not be started. Try again.");
            return new Promise(function (resolve, reject) {
              function listen(event) {
                var d = event.data;
                if (event.origin !== ORIGIN || !d || d.eventName !== "helcim-pay-js-" + session) return;
                window.removeEventListener("message", listen);
                close();
                var message = parse(d.eventMessage);
                var data = message.data || {};
                if (d.eventStatus === "SUCCESS" && data.cardToken) {
                  resolve({token: session + "|" + data.cardToken, type: "Card"});
                } else if (d.eventStatus === "HIDE") {
                  reject(new Error("No card was entered. Press the button again to enter one."));
                } else {
                  reject(new Error(message.reason || message.message || "The card could not be verified. Try another card."));
                }
              }
              window.addEventListener("message", listen);
              window.appendHelcimPayIframe(session, true);
            });
          });
        }
      };
    }
  };
})();
