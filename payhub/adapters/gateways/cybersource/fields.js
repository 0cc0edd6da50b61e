/*
 * payhub hosted-fields driver for CyberSource: Microform Integration v2
 * (https://developer.cybersource.com/docs/cybs/en-us/digital-accept-flex/developer/all/rest/digital-accept-flex/microform-integ-v2.html).
 *
 * config: {sdk: [".../flex-microform.min.js"], captureContext: "<JWT>"}: the capture context
 * is made server-side for this page view by payhub's CyberSource adapter
 * (POST /microform/v2/sessions, bound to the pages' origin). new Flex(captureContext)
 * .microform() makes the fields; createField("number") and createField("securityCode") are
 * loaded into two boxes (CyberSource's iframes). The expiry is an ordinary pair of inputs
 * (Microform takes it in createToken's options). createToken({expirationMonth,
 * expirationYear}, callback) calls back (err, token): the token is the transient token JWT
 * payhub's CyberSource adapter charges (tokenInformation.transientTokenJwt); err has
 * {message, details: [{location, message}]}.
 */
(function () {
  "use strict";
  var util = window.PayHubFields.util;
  var LOAD_FAILED = util.LOAD_FAILED;

  function input(el, id, label, attrs) {
    var l = document.createElement("label");
    l.className = "field-label";
    l.htmlFor = id;
    l.textContent = label;
    var i = document.createElement("input");
    i.id = id;
    Object.keys(attrs).forEach(function (k) { i.setAttribute(k, attrs[k]); });
    el.appendChild(l);
    el.appendChild(i);
    return i;
  }

  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.cybersource = {
    createFields: function (el, options) {
      var config = options.config || {};
      var prefix = options.idPrefix || "cybersource";
      if (options.type !== "card") {
        return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
      }
      var number = util.group(el, prefix + "-cs-number", "Card number");
      var month = input(el, prefix + "-cs-month", "Expiry month (MM)",
                        {autocomplete: "cc-exp-month", inputmode: "numeric", maxlength: "2"});
      var year = input(el, prefix + "-cs-year", "Expiry year (YYYY)",
                       {autocomplete: "cc-exp-year", inputmode: "numeric", maxlength: "4"});
      var cvv = util.group(el, prefix + "-cs-cvv", "Security code");
      var ready = util.load(config.sdk).then(function () {
        if (typeof window.Flex !== "function") throw new Error(LOAD_FAILED);
        var microform = new window.Flex(config.captureContext).microform({});
        microform.createField("number", {placeholder: "Card number"}).load("#" + number.id);
        microform.createField("securityCode", {placeholder: "CVV"}).load("#" + cvv.id);
        return microform;
      });
      ready.catch(function () { number.textContent = LOAD_FAILED; });
      return {
        tokenize: function () {
          var mm = month.value.trim(), yyyy = year.value.trim();
          if (!/^(0[1-9]|1[0-2])$/.test(mm)) { month.focus(); return Promise.reject(new Error("Enter the expiry month as MM.")); }
          if (!/^20\d\d$/.test(yyyy)) { year.focus(); return Promise.reject(new Error("Enter the expiry year as YYYY.")); }
          return ready.then(function (microform) {
            return new Promise(function (resolve, reject) {
              microform.createToken({expirationMonth: mm, expirationYear: yyyy}, function (err, token) {
                if (err) {
                  var details = (err.details || []).map(function (d) { return d && d.message; }).filter(Boolean);
                  reject(new Error(details.length ? details.join(" ") : (err.message || "Check the card details.")));
                  return;
                }
                resolve({token: token, type: "Card"});
              });
            });
          });
        }
      };
    }
  };
})();
