/*
 * payhub hosted-fields driver for Authorize.Net: AcceptUI, Accept.js's hosted payment form
 * (https://developer.authorize.net/api/reference/features/acceptjs.html). The card is typed in
 * Authorize.Net's own lightbox frame (SAQ A), never in payhub's page.
 *
 * config: {sdk: [".../v3/AcceptUI.js"], apiLoginId, clientKey}. AcceptUI binds to a button with
 * class "AcceptUI" and data-apiLoginID / data-clientKey / data-responseHandler (a global
 * function's name), so the button is placed before the script loads. tokenize() resolves
 * {token: "<dataDescriptor>;<dataValue>", type: "Card"}: the opaqueData payhub's Authorize.Net
 * adapter sends.
 *
 * AcceptUI has no cancel callback: when the payer closes its lightbox, its frame (acceptMain,
 * on the SDK's host) posts {verifyOrigin: "AcceptMain", type: "CLOSE_IFRAME"} to the page and
 * AcceptUI just hides the frame. The driver listens for that message (from the SDK's origin
 * only) and rejects the pending tokenize(), so the page's Pay button is usable again.
 */
(function () {
  "use strict";
  var LOAD_FAILED = window.PayHubFields.util.LOAD_FAILED;
  var CLOSED = "No card was entered. Press the button again when you are ready.";
  var count = 0;
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields["authorize-net"] = {
    createFields: function (el, options) {
      var config = options.config || {};
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var handlerName = "payhubAcceptResponse" + (++count);
      var button = document.createElement("button");
      button.type = "button";
      button.className = "AcceptUI secondary";
      button.id = (options.idPrefix || "anet") + "-accept-open";
      button.textContent = "Enter card details";
      button.setAttribute("data-billingAddressOptions", '{"show":false, "required":false}');
      button.setAttribute("data-apiLoginID", config.apiLoginId);
      button.setAttribute("data-clientKey", config.clientKey);
      button.setAttribute("data-acceptUIFormBtnTxt", "Use this card");
      button.setAttribute("data-acceptUIFormHeaderTxt", "Card details");
      button.setAttribute("data-responseHandler", handlerName);
      var status = document.createElement("p");
      status.className = "hint";
      status.setAttribute("role", "status");
      el.appendChild(button);
      el.appendChild(status);
      var token = null;
      var pending = null;
      window[handlerName] = function (response) {
        var ok = response && response.messages && response.messages.resultCode === "Ok";
        var p = pending;
        pending = null;
        if (!ok) {
          var m = response && response.messages && response.messages.message;
          var error = new Error((m && m[0] && m[0].text) || "Check the card details.");
          if (p) p.reject(error); else status.textContent = error.message;
          return;
        }
        token = response.opaqueData.dataDescriptor + ";" + response.opaqueData.dataValue;
        var shown = response.encryptedCardData && response.encryptedCardData.cardNumber;
        status.textContent = shown ? "Card ending " + shown.slice(-4) + " ready." : "Card ready.";
        if (p) { var t = token; token = null; p.resolve({token: t, type: "Card"}); }
      };
      var vendor = new URL(config.sdk[0]).origin;
      window.addEventListener("message", function (event) {
        var d = event.data;
        if (event.origin !== vendor || !d || typeof d !== "object") return;
        if (d.verifyOrigin === "AcceptMain" && d.type === "CLOSE_IFRAME" && pending) {
          var p = pending;
          pending = null;
          p.reject(new Error(CLOSED));
        }
      });
      var ready = new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = config.sdk[0];
        s.charset = "utf-8";
        s.onload = resolve;
        s.onerror = function () { reject(new Error(LOAD_FAILED)); };
        document.head.appendChild(s);
      });
      ready.catch(function () { status.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function () {
            if (token) { var t = token; token = null; return {token: t, type: "Card"}; }  // single use
            return new Promise(function (resolve, reject) {
              pending = {resolve: resolve, reject: reject};
              button.click();  // opens Authorize.Net's form; its answer settles this promise
            });
          });
        }
      };
    }
  };
})();
