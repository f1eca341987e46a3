// A stand-in for Stripe.js served by the local Stripe server, with the calls till's checkout page
// makes: Stripe(pk), elements({mode, amount, currency}), create("payment").mount(el),
// elements.submit(), createConfirmationToken({elements}) and handleNextAction({clientSecret}).
// The real Payment Element collects the card inside Stripe's iframe; this one renders plain inputs
// in the page and sends the card number to the local server's /v1/confirmation_tokens, which turns
// Stripe's test card numbers into their test payment methods. 3-D Secure is a challenge dialog
// with Complete and Fail buttons, answered to /v1/payment_intents/{id}/confirm (or
// /v1/setup_intents/{id}/confirm for a card saved without a payment).
export const STRIPE_JS = String.raw`(function () {
  var base = new URL(document.currentScript.src).origin;
  function post(pk, path, body) {
    return fetch(base + path, {
      method: "POST",
      headers: { authorization: "Bearer " + pk, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(body).toString(),
    }).then(function (r) { return r.json(); });
  }
  window.Stripe = function (pk) {
    var number = null;
    return {
      elements: function (options) {
        return {
          options: options,
          create: function (type) {
            return {
              mount: function (target) {
                var host = typeof target === "string" ? document.querySelector(target) : target;
                host.innerHTML =
                  '<div class="stripe-standin" data-element="' + type + '">' +
                  '<label for="stripe-card-number">Card number</label>' +
                  '<input id="stripe-card-number" autocomplete="cc-number" inputmode="numeric">' +
                  "</div>";
                number = host.querySelector("input");
              },
              destroy: function () { number = null; },
              on: function () {},
            };
          },
          submit: function () {
            var digits = number ? number.value.replace(/\D/g, "") : "";
            return Promise.resolve(
              digits.length < 12
                ? { error: { type: "validation_error", message: "Your card number is incomplete." } }
                : {},
            );
          },
        };
      },
      createConfirmationToken: function () {
        return post(pk, "/v1/confirmation_tokens", {
          "payment_method_data[type]": "card",
          "payment_method_data[card][number]": number ? number.value.replace(/\D/g, "") : "",
        }).then(function (b) { return b.error ? { error: b.error } : { confirmationToken: b }; });
      },
      handleNextAction: function (options) {
        var secret = options.clientSecret;
        var id = secret.split("_secret_")[0];
        return new Promise(function (resolve) {
          var dialog = document.createElement("dialog");
          dialog.setAttribute("aria-label", "3D Secure test challenge");
          dialog.innerHTML =
            "<p>3D Secure test payment</p>" +
            '<button type="button" value="complete">Complete</button>' +
            '<button type="button" value="fail">Fail</button>';
          document.body.appendChild(dialog);
          dialog.showModal();
          dialog.addEventListener("click", function (e) {
            var choice = e.target && e.target.value;
            if (!choice) return;
            dialog.remove();
            // As Stripe.js: a SetupIntent's secret (a card saved for later) or a PaymentIntent's.
            var setup = id.indexOf("seti_") === 0;
            post(pk, (setup ? "/v1/setup_intents/" : "/v1/payment_intents/") + id + "/confirm", {
              client_secret: secret,
              fail: choice === "fail" ? "true" : "false",
            }).then(function (b) {
              resolve(
                b.error || b.status !== "succeeded"
                  ? { error: b.error || { type: "card_error", message: "We are unable to authenticate your payment method." } }
                  : setup ? { setupIntent: b } : { paymentIntent: b },
              );
            });
          });
        });
      },
    };
  };
})();
`;
