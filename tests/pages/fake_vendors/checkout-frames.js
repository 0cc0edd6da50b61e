/*
 * TEST FAKE of Checkout.com Frames v2 (https://www.checkout.com/docs/developer-resources/sdks/
 * frames-reference), served by playwright in place of https://cdn.checkout.com/js/framesv2.min.js.
 * The surface payhub's driver uses: Frames.init({publicKey}) (or a bare key) mounts the single
 * card frame (an iframe on cdn.checkout.com: frame-src) in the element with class "card-frame";
 * Frames.isCardValid(); Frames.submitCard() POSTs the card to the API's /tokens with the public
 * key as Authorization (api.sandbox.checkout.com for pk_sbox_/pk_test_ keys: connect-src) and
 * resolves the cardTokenized data {type: "card", token: "tok_...", last4, ...} or rejects; after
 * a submission the form stays locked (submitCard rejects) until Frames.enableSubmitForm().
 * One input (the card number) stands for the frame's number, expiry and CVV.
 */
(function () {
  "use strict";
  var CDN = "https://cdn.checkout.com";
  var key = "", number = "", locked = false, handlers = {};
  function fire(name, data) { (handlers[name] || []).forEach(function (h) { h(data); }); }
  window.addEventListener("message", function (event) {
    var d = event.data;
    if (event.origin === CDN && d && d.fakeField && !d.loaded) {
      number = d.value.replace(/\s/g, "");
      fire("cardValidationChanged", {isValid: window.Frames.isCardValid()});
    }
  });
  window.Frames = {
    Events: {READY: "ready", CARD_VALIDATION_CHANGED: "cardValidationChanged",
             CARD_TOKENIZED: "cardTokenized", CARD_TOKENIZATION_FAILED: "cardTokenizationFailed"},
    init: function (config) {
      key = typeof config === "string" ? config : (config && config.publicKey) || "";
      if (!/^pk_/.test(key)) throw new Error("Frames: a public key is required");
      var el = document.querySelector(".card-frame");
      if (!el) throw new Error("Frames: no .card-frame element");
      var frame = document.createElement("iframe");
      frame.title = "Card number";
      frame.src = CDN + "/js/frames/card-frame.html#cardNumber";
      frame.onload = function () { fire("ready", {}); };
      el.appendChild(frame);
    },
    addEventHandler: function (name, handler) { (handlers[name] = handlers[name] || []).push(handler); },
    isCardValid: function () { return /^\d{13,19}$/.test(number); },
    enableSubmitForm: function () { locked = false; },
    submitCard: function () {
      if (locked) return Promise.reject(new Error("Frames: the card form is already submitted"));
      if (!this.isCardValid()) return Promise.reject(new Error("Card form invalid"));
      locked = true;
      var api = /^pk_(sbox|test)_/.test(key) ? "https://api.sandbox.checkout.com" : "https://api.checkout.com";
      return fetch(api + "/tokens", {
        method: "POST",
        headers: {"Authorization": key, "Content-Type": "application/json"},
        body: JSON.stringify({type: "card", number: number, expiry_month: 6, expiry_year: 2030, cvv: "100"})
      }).then(function (r) { return r.json().then(function (body) { return {ok: r.ok, body: body}; }); })
        .then(function (answer) {
          if (!answer.ok) {
            fire("cardTokenizationFailed", answer.body);
            throw new Error((answer.body.error_codes || ["tokenization failed"]).join(", "));
          }
          fire("cardTokenized", answer.body);
          return answer.body;
        });
    }
  };
})();
