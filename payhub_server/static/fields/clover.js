/*
 * payhub hosted-fields driver for Clover: the Clover iframe SDK's card elements
 * (https://docs.clover.com/docs/using-the-clover-hosted-iframe,
 * https://docs.clover.com/docs/clover-iframe-features).
 *
 * config: {sdk: [".../sdk.js"], apiAccessKey, merchantId}. new Clover(apiAccessKey,
 * {merchantId}); each card element (number, expiry, CVV, postal code) is Clover's own iframe;
 * tokenize() calls clover.createToken() and resolves {token: "clv_...", type: "Card"}: the
 * source payhub's Clover adapter charges. createToken answers invalid fields as {errors: {...}}.
 */
(function () {
  "use strict";
  var LOAD_FAILED = "The payment form could not be loaded. Check your connection and reload the page.";
  var ELEMENTS = [["CARD_NUMBER", "number", "Card number"], ["CARD_DATE", "date", "Expiry date"],
                  ["CARD_CVV", "cvv", "Security code"], ["CARD_POSTAL_CODE", "postal", "Billing ZIP code"]];
  function load(urls) {
    return urls.reduce(function (done, url) {
      return done.then(function () {
        return new Promise(function (resolve, reject) {
          var s = document.createElement("script");
          s.src = url;
          s.onload = resolve;
          s.onerror = function () { reject(new Error(LOAD_FAILED)); };
          document.head.appendChild(s);
        });
      });
    }, Promise.resolve());
  }
  function group(el, id, label) {
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
  function firstError(errors) {
    for (var i = 0; i < ELEMENTS.length; i++) {
      if (errors[ELEMENTS[i][0]]) return ELEMENTS[i][2] + ": " + errors[ELEMENTS[i][0]];
    }
    var keys = Object.keys(errors);
    return keys.length ? String(errors[keys[0]]) : "Check the card details.";
  }
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.clover = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "clover";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var boxes = ELEMENTS.map(function (e) { return group(el, prefix + "-clover-" + e[1], e[2]); });
      var ready = load(config.sdk).then(function () {
        if (!window.Clover) throw new Error(LOAD_FAILED);
        var clover = new window.Clover(config.apiAccessKey, {merchantId: config.merchantId});
        var elements = clover.elements();
        ELEMENTS.forEach(function (e, i) { elements.create(e[0]).mount("#" + boxes[i].id); });
        return clover;
      });
      ready.catch(function () { boxes[0].textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          return ready.then(function (clover) { return clover.createToken(); }).then(function (result) {
            if (result && result.token) return {token: result.token, type: "Card"};
            throw new Error(firstError((result && result.errors) || {}));
          });
        }
      };
    }
  };
})();
