-- POST /api/payments/charge with the simulator (no Idempotency-Key: every request charges).
local key = os.getenv("PAYHUB_BENCH_KEY")
local body = '{"amount":{"value":25.00,"currency":"USD"},"gatewayName":"simulator","paymentMethodToken":"sim_card_ok"}'
function request()
  return wrk.format("POST", "/api/payments/charge",
    {["Content-Type"] = "application/json", ["X-Api-Key"] = key, ["X-Merchant-Reference"] = "bench-shop"}, body)
end
