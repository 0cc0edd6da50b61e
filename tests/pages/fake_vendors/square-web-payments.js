/*
 * TEST FAKE of Square's Web Payments SDK (https://developer.squareup.com/reference/sdks/web/payments),
 * served by playwright in place of https://sandbox.web.squarecdn.com/v1/square.js. The surface
 * payhub's driver uses: Square.payments(applicationId, locationId) (throws for an application
 * id of the other environment, as the sandbox script does for sq0idp- ids) -> {card() ->
 * Promise<Card>}; card.attach(selector) puts Square's iframe (on sandbox.web.squarecdn.com:
 * frame-src) in the element; card.tokenize() resolves {status: "OK", token: "cnon:..."} or
 * {status: "Invalid", errors: [{type: "VALIDATION_ERROR", field: "cardNumber", message}]}.
 * The nonce comes from a POST to https://pci-connect.squareupsandbox.com (connect-src).
 * One input (the card number) stands for the card element's combined fields.
 */
(function () {
  "use strict";
  var FRAMES = "https://sandbox.web.squarecdn.com";
  window.Square = {
    payments: function (applicationId, locationId) {
      if (!/^sandbox-sq0idb-/.test(applicationId || "")) {
        throw new Error("ApplicationIdEnvironmentMismatchError: " + applicationId);
      }
      if (!locationId) throw new Error("InvalidLocationIdError");
      var number = "";
      window.addEventListener("message", function (event) {
        var d = event.data;
        if (event.origin === FRAMES && d && d.fakeField && !d.loaded) number = d.value.replace(/\s/g, "");
      });
      return {
        card: function () {
          return Promise.resolve({
            attach: function (selector) {
              var el = document.querySelector(selector);
              if (!el) return Promise.reject(new Error("ElementNotFoundError: " + selector));
              var frame = document.createElement("iframe");
              frame.title = "Secure Credit Card Form";
              frame.src = FRAMES + "/v1/card-frame.html#cardNumber";
              return new Promise(function (resolve) { frame.onload = resolve; el.appendChild(frame); });
            },
            tokenize: function () {
              if (!/^\d{13,19}$/.test(number)) {
                return Promise.resolve({status: "Invalid", errors: [{type: "VALIDATION_ERROR",
                  field: "cardNumber", message: "Card number is not valid"}]});
              }
              return fetch("https://pci-connect.squareupsandbox.com/v2/card-nonce", {
                method: "POST",
                headers: {"Content-Type": "application/json"},
                body: JSON.stringify({client_id: applicationId, location_id: locationId, card_number: number})
              }).then(function (r) { return r.json(); }).then(function (body) {
                if (body.card_nonce) return {status: "OK", token: body.card_nonce, details: body.card};
                return {status: "Invalid", errors: body.errors || []};
              });
            }
          });
        }
      };
    }
  };
})();
