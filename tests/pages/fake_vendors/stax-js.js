/*
 * TEST FAKE of Stax.js (https://docs.staxpayments.com/docs/staxjs), served by playwright in
 * place of https://staxjs.staxpayments.com/staxjs-captcha.js. The surface payhub's driver uses:
 * new StaxJs(webPaymentsToken, {number: {id}, cvv: {id}}); showCardForm() puts the number and
 * CVV iframes (on staxjs.staxpayments.com, frame-src) in those elements and resolves;
 * tokenize(extraDetails) needs firstname, lastname, month, year and resolves the payment
 * method Stax stored ({id, card_last_four, ...}) or rejects with the API's field-keyed
 * messages. The fake posts to a stand-in path on the Stax API host (connect-src).
 */
(function () {
  "use strict";
  var HOST = "https://staxjs.staxpayments.com";
  window.StaxJs = function (token, fields) {
    if (!token) throw new Error("StaxJs: a web payments token is required");
    var values = {number: "", cvv: ""};
    window.addEventListener("message", function (event) {
      var d = event.data;
      if (event.origin === HOST && d && d.fakeField && !d.loaded) values[d.field] = d.value.replace(/\s/g, "");
    });
    this.showCardForm = function () {
      ["number", "cvv"].forEach(function (name) {
        var el = document.getElementById(fields[name].id);
        if (!el) throw new Error("StaxJs: no element " + fields[name].id);
        var frame = document.createElement("iframe");
        frame.title = name === "number" ? "Card number" : "Security code";
        frame.src = HOST + "/fields.html#" + name;
        el.appendChild(frame);
      });
      return Promise.resolve({});
    };
    this.tokenize = function (details) {
      var missing = ["firstname", "lastname", "month", "year"].filter(function (k) { return !details[k]; });
      if (missing.length) return Promise.reject({message: missing.join(", ") + " required"});
      return fetch("https://apiprod.fattlabs.com/webpayment/" + encodeURIComponent(token) + "/tokenize", {
        method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({card_number: values.number, card_cvv: values.cvv, month: details.month,
                              year: details.year, firstname: details.firstname, lastname: details.lastname,
                              method: details.method})
      }).then(function (r) {
        return r.json().then(function (body) { if (!r.ok) throw body; return body; });
      });
    };
  };
})();
