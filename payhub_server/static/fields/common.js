/*
 * What every payhub hosted-fields driver shares, loaded before the driver:
 * PayHubFields.util.load(urls) loads the vendor's scripts in order; group(el, id, label, extraClass)
 * adds a labelled box for a vendor's iframe field; LOAD_FAILED is the message when they fail;
 * globalPaymentsForm(el, options, settings) is globalpayments.js's hosted form (Heartland, GP-API).
 */
(function () {
  "use strict";
  var LOAD_FAILED = "The payment form could not be loaded. Check your connection and reload the page.";
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
  function group(el, id, label, extraClass) {
    var title = document.createElement("p");
    title.className = "field-label";
    title.id = id + "-label";
    title.textContent = label;
    var box = document.createElement("div");
    box.className = extraClass ? "vendor-field " + extraClass : "vendor-field";
    box.id = id;
    box.setAttribute("role", "group");
    box.setAttribute("aria-labelledby", title.id);
    el.appendChild(title);
    el.appendChild(box);
    return box;
  }

  // globalpayments.js's hosted form (Heartland with a public API key, GP-API with an access
  // token made server-side): GlobalPayments.configure(settings), then GlobalPayments.ui.form
  // with the number, expiry, CVV and its own hosted submit button, the only thing that can
  // make the token (a page script cannot read or submit the frames). "token-success" brings
  // {paymentReference}, "token-error" {reasons: [{message}]}. So the payer presses "Use this
  // card", then Pay: tokenize() resolves the token that button made and forgets it (single
  // use: after a decline the payer confirms the card again), and says what to do without one.
  var GP_CONFIRM = "Press \u201cUse this card\u201d under the card details first, then pay.";
  function gpReasons(resp) {
    var reasons = (resp && resp.reasons) || (resp && resp.error && resp.error.reasons) || [];
    var texts = reasons.map(function (r) { return r && r.message; }).filter(Boolean);
    return texts.length ? texts.join(" ") : "Check the card details.";
  }
  function globalPaymentsForm(el, options, settings) {
    var config = options.config || {};
    var prefix = options.idPrefix || "gp";
    if (options.type !== "card") {
      return {tokenize: function () { return Promise.reject(new Error("Only cards can be used here.")); }};
    }
    var boxes = {
      "card-number": group(el, prefix + "-gp-number", "Card number"),
      "card-expiration": group(el, prefix + "-gp-expiry", "Expiry (MM / YYYY)"),
      "card-cvv": group(el, prefix + "-gp-cvv", "Security code"),
      submit: group(el, prefix + "-gp-submit", "Confirm the card")
    };
    var status = document.createElement("p");
    status.className = "field-hint";
    status.id = prefix + "-gp-status";
    status.setAttribute("aria-live", "polite");
    el.appendChild(status);
    var state = {token: null, error: null};
    var ready = load(config.sdk).then(function () {
      var gp = window.GlobalPayments;
      if (!gp || !gp.ui || typeof gp.configure !== "function") throw new Error(LOAD_FAILED);
      gp.configure(settings);
      var fields = {};
      Object.keys(boxes).forEach(function (name) { fields[name] = {target: "#" + boxes[name].id}; });
      fields["card-number"].placeholder = "\u2022\u2022\u2022\u2022 \u2022\u2022\u2022\u2022 \u2022\u2022\u2022\u2022 \u2022\u2022\u2022\u2022";
      fields["card-expiration"].placeholder = "MM / YYYY";
      fields["card-cvv"].placeholder = "\u2022\u2022\u2022";
      fields.submit.value = "Use this card";
      var form = gp.ui.form({fields: fields});
      form.on("token-success", function (resp) {
        state.token = resp && resp.paymentReference;
        state.error = null;
        var last4 = resp && resp.details && resp.details.cardLast4;
        status.textContent = last4 ? "Card ending " + last4 + " is ready. Now press Pay." : "Card ready. Now press Pay.";
      });
      form.on("token-error", function (resp) {
        state.token = null;
        state.error = gpReasons(resp);
        status.textContent = state.error;
      });
      return form;
    });
    ready.catch(function () { boxes["card-number"].textContent = LOAD_FAILED; });
    return {
      tokenize: function () {
        return ready.then(function () {
          var token = state.token;
          state.token = null;
          if (token) {
            status.textContent = "";
            return {token: token, type: "Card"};
          }
          throw new Error(state.error ? state.error + " " + GP_CONFIRM : GP_CONFIRM);
        });
      }
    };
  }
  window.PayHubFields = window.PayHubFields || {};
  window.PayHubFields.util = {LOAD_FAILED: LOAD_FAILED, load: load, group: group,
                              globalPaymentsForm: globalPaymentsForm};
})();
