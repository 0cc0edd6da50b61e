#!/usr/bin/env bash
# A first session against a running `payhub serve` (sandbox): merchant, simulator credentials,
# a charge, a partial refund. Usage: KEY=phk_sandbox_… ./examples/first_requests.sh
set -euo pipefail
BASE=${BASE:-http://127.0.0.1:8000}
H=(-H "X-Api-Key: $KEY" -H "Content-Type: application/json")

curl -s "${H[@]}" -d '{"externalReference":"acme-42","displayName":"Acme Plumbing"}' \
  "$BASE/api/merchant-accounts"; echo
curl -s -X PUT "${H[@]}" -d '{"apiSecret":"sim","environment":"Sandbox","enabled":true}' \
  "$BASE/api/merchant-accounts/acme-42/credentials/simulator"; echo
TX=$(curl -s "${H[@]}" -H "X-Merchant-Reference: acme-42" -H "Idempotency-Key: demo-1" \
  -d '{"amount":{"value":25.00,"currency":"USD"},"gatewayName":"simulator","paymentMethodToken":"sim_card_ok"}' \
  "$BASE/api/payments/charge" | python3 -c 'import json,sys; print(json.load(sys.stdin)["transactionId"])')
echo "charged $TX"
curl -s "${H[@]}" -H "X-Merchant-Reference: acme-42" -d '{"amount":{"value":5,"currency":"USD"}}' \
  "$BASE/api/payments/simulator/transactions/$TX/refund"; echo
