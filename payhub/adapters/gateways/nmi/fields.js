/*
 * payhub hosted-fields driver for NMI: Collect.js, inline variant
 * (https://docs.nmi.com/docs/quick-start-tutorial, https://docs.nmi.com/docs/collectjs).
 *
 * config: {sdk: [".../token/Collect.js"], tokenizationKey}. The script tag carries
 * data-tokenization-key and data-variant="inline"; Collect.js puts one NMI iframe in each of the
 * ccnumber / ccexp / cvv slots. tokenize() calls CollectJS.startPaymentRequest() and resolves
 * {token: response.token, type: "Card"}: the payment_token payhub's NMI adapter charges.
 *
 * Collect.js answers a payment request only through callbacks: callback with the token, or,
 * when a field is invalid, validationCallback and nothing else. So a pending tokenize() is
 * rejected by the first invalid field (otherwise Pay would stay busy), and requests wait for
 * fieldsAvailableCallback (Collect.js ignores one made before its frames are ready).
 */
(function () {
  "use strict";
  var LOAD_FAILED = window.PayHubFields.util.LOAD_FAILED;
  function loadCollect(url, key) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = url;
      s.setAttribute("data-tokenization-key", key);
      s.setAttribute("data-variant", "inline");
      s.onload = resolve;
      s.onerror = function () { reject(new Error(LOAD_FAILED)); };
      document.head.appendChild(s);
    });
  }
  function slot(el, id, label) {
    var title = document.createElement("p");
    title.className = "field-label";
    title.id = id + "-label";
    title.textContent = label;
    var box = document.createElement("div");
    box.className = "vendor-field";
    box.id = id;
    box.setAttribute("role", "group");
    box.setAttribute("aria-labelledby", title.id);
    el.appendChild(title);
    el.appendChild(box);
    return box;
  }
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.nmi = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = (options.idPrefix || "nmi") + "-nmi";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      slot(el, prefix + "-ccnumber", "Card number");
      slot(el, prefix + "-ccexp", "Expiry (MM/YY)");
      slot(el, prefix + "-cvv", "Security code");
      var pending = null;
      function settle(fn, value) { var p = pending; pending = null; if (p) p[fn](value); }
      var ready = loadCollect(config.sdk[0], config.tokenizationKey).then(function () {
        if (!window.CollectJS) throw new Error(LOAD_FAILED);
        return new Promise(function (fieldsReady) { configure(fieldsReady); });
      });
      function configure(fieldsReady) {
        window.CollectJS.configure({
          variant: "inline",
          paymentSelector: "#" + prefix + "-no-button",  // payhub's own button drives it
          fields: {
            ccnumber: {selector: "#" + prefix + "-ccnumber", title: "Card number"},
            ccexp: {selector: "#" + prefix + "-ccexp", title: "Expiry", placeholder: "MM / YY"},
            cvv: {selector: "#" + prefix + "-cvv", title: "Security code", display: "show"}
          },
          fieldsAvailableCallback: fieldsReady,
          validationCallback: function (field, valid, message) {
            // During a request, an invalid field is Collect.js's whole answer; a field left
            // invalid earlier is checked again by the request itself, so nothing is kept.
            if (!valid) settle("reject", new Error(message || "Check the card details."));
          },
          timeoutDuration: 15000,
          timeoutCallback: function () {
            settle("reject", new Error("The card details could not be checked in time. Try again."));
          },
          callback: function (response) {
            if (response && response.token) settle("resolve", {token: response.token, type: "Card"});
            else settle("reject", new Error("Check the card details."));
          }
        });
      }
      ready.catch(function () { el.appendChild(document.createTextNode(LOAD_FAILED)); });
      return {
        tokenize: function () {
          return ready.then(function () {
            return new Promise(function (resolve, reject) {
              pending = {resolve: resolve, reject: reject};
              window.CollectJS.startPaymentRequest();
            });
          });
        }
      };
    }
  };
})();
