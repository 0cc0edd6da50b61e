/*
 * TEST FAKE of Worldpay's eProtect iframe client (eProtect Integration Guide, iframe API),
 * served by playwright in place of
 * https://request.eprotect.vantivprelive.com/eProtect/js/eProtect-iframe-client.min.js.
 * The surface payhub's driver uses: new EprotectIframeClient({paypageId, reportGroup, div,
 * callback, ...}) puts the card iframe (on the eProtect host, frame-src) in the div;
 * getPaypageRegistrationId({id, orderId}) registers the card and calls back with
 * {response: "870", paypageRegistrationId, lastFour} or {response: "871", message}. The real
 * iframe posts the card itself; this fake reads the field frame's messages and posts from the
 * page to a stand-in path on the same host (connect-src).
 */
(function () {
  "use strict";
  var HOST = "https://request.eprotect.vantivprelive.com";
  window.EprotectIframeClient = function (config) {
    if (!config.paypageId || typeof config.callback !== "function") throw new Error("eProtect: paypageId and callback are required");
    var el = document.getElementById(config.div);
    if (!el) throw new Error("eProtect: no element " + config.div);
    var number = "";
    window.addEventListener("message", function (event) {
      var d = event.data;
      if (event.origin === HOST && d && d.fakeField && !d.loaded) number = d.value.replace(/\s/g, "");
    });
    var frame = document.createElement("iframe");
    frame.title = "Card details";
    frame.src = HOST + "/eProtect/eProtect-iframe.html#accountNumber";
    el.appendChild(frame);
    this.getPaypageRegistrationId = function (message) {
      if (!message || !message.id) throw new Error("eProtect: an id is required");
      if (!/^\d{13,19}$/.test(number)) {
        setTimeout(function () { config.callback({response: "871", message: "Account number not numeric", id: message.id}); }, 0);
        return;
      }
      fetch(HOST + "/eProtect/paypage", {
        method: "POST",
        headers: {"Content-Type": "application/json"},
        body: JSON.stringify({paypageId: config.paypageId, reportGroup: config.reportGroup,
                              id: message.id, orderId: message.orderId, accountNumber: number})
      }).then(function (r) { return r.json(); }).then(function (body) {
        body.id = message.id;
        config.callback(body);
      });
    };
  };
})();
