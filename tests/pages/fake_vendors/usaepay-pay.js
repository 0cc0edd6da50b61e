/*
 * TEST FAKE of USAePay's Pay.js v2 (https://help.usaepay.info/developer/javascript-library/),
 * served by playwright in place of https://sandbox.usaepay.com/js/v2/pay.js. The surface
 * payhub's driver uses: new usaepay.Client(publicKey) -> {createPaymentCardEntry() ->
 * {generateHTML(style), addHTML(elementId)}, getPaymentKey(card)}. The card entry is an
 * iframe on sandbox.usaepay.com (frame-src); getPaymentKey resolves the payment key (a string)
 * or {error: {message}}, after a POST with the public key to sandbox.usaepay.com (connect-src).
 * One input (the card number) stands for the entry's number, expiry and CVV.
 */
(function () {
  "use strict";
  var HOST = "https://sandbox.usaepay.com";
  window.usaepay = {
    Client: function (publicKey) {
      if (!/^_/.test(publicKey || "")) throw new Error("usaepay.Client: a public key is required");
      var number = "";
      window.addEventListener("message", function (event) {
        var d = event.data;
        if (event.origin === HOST && d && d.fakeField && !d.loaded) number = d.value.replace(/\s/g, "");
      });
      this.createPaymentCardEntry = function () {
        return {
          generateHTML: function () {},
          addHTML: function (id) {
            var el = document.getElementById(id);
            if (!el) throw new Error("usaepay: no element " + id);
            var frame = document.createElement("iframe");
            frame.title = "Payment card entry";
            frame.src = HOST + "/js/v2/paymentcard.html#cardNumber";
            el.appendChild(frame);
          }
        };
      };
      this.getPaymentKey = function () {
        if (!/^\d{13,19}$/.test(number)) return Promise.resolve({error: {message: "Card number is invalid"}});
        return fetch(HOST + "/js/v2/paymentkey", {
          method: "POST",
          headers: {"Content-Type": "application/json"},
          body: JSON.stringify({public_key: publicKey, creditcard: {number: number, expiration: "0930", cvc: "123"}})
        }).then(function (r) { return r.json(); }).then(function (body) {
          return body.key ? body.key : {error: {message: body.error || "Card number is invalid"}};
        });
      };
    }
  };
})();
