/*
 * TEST FAKE of CyberSource Microform Integration v2 (developer.cybersource.com, "Microform
 * Integration v2"), served by playwright in place of
 * https://testflex.cybersource.com/microform/bundle/v2.0/flex-microform.min.js. The surface
 * payhub's driver uses: new Flex(captureContext).microform(options) -> {createField("number" |
 * "securityCode", options) -> {load(selector)}, createToken({expirationMonth, expirationYear},
 * callback(err, token))}. Fields are iframes on testflex.cybersource.com (frame-src);
 * createToken posts the card with the capture context to a stand-in path on that host
 * (connect-src) and calls back with the transient token JWT, or err {message, details}.
 */
(function () {
  "use strict";
  var HOST = "https://testflex.cybersource.com";
  window.Flex = function (captureContext) {
    if (!captureContext || captureContext.split(".").length !== 3) throw new Error("Flex: a capture context JWT is required");
    var values = {number: "", securityCode: ""};
    window.addEventListener("message", function (event) {
      var d = event.data;
      if (event.origin === HOST && d && d.fakeField && !d.loaded) values[d.field] = d.value.replace(/\s/g, "");
    });
    this.microform = function () {
      return {
        createField: function (name) {
          return {
            load: function (selector) {
              var el = document.querySelector(selector);
              if (!el) throw new Error("Microform: no element " + selector);
              var frame = document.createElement("iframe");
              frame.title = name;
              frame.src = HOST + "/microform/bundle/v2.0/iframe.html#" + name;
              el.appendChild(frame);
            }
          };
        },
        createToken: function (options, callback) {
          if (!/^\d{13,19}$/.test(values.number)) {
            setTimeout(function () {
              callback({reason: "CREATE_TOKEN_VALIDATION_FIELDS", message: "Validation error",
                        details: [{location: "number", message: "Validation error: the card number is invalid"}]});
            }, 0);
            return;
          }
          fetch(HOST + "/flex/v2/tokens", {
            method: "POST",
            headers: {"Content-Type": "application/json"},
            body: JSON.stringify({captureContext: captureContext, number: values.number,
                                  securityCode: values.securityCode, expirationMonth: options.expirationMonth,
                                  expirationYear: options.expirationYear})
          }).then(function (r) {
            return r.json().then(function (body) {
              if (r.ok) callback(null, body.token);
              else callback({reason: body.reason, message: body.message, details: body.details || []});
            });
          });
        }
      };
    };
  };
})();
