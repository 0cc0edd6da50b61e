-- POST /api/merchant-accounts with a fresh externalReference on every request.
local counter = 0
local threads = {}
local key = os.getenv("PAYHUB_BENCH_KEY")

function setup(thread)
  thread:set("tid", #threads + 1)
  table.insert(threads, thread)
end

function request()
  counter = counter + 1
  local body = string.format('{"externalReference":"bench-%d-%d","displayName":"Bench shop"}', tid, counter)
  return wrk.format("POST", "/api/merchant-accounts",
    {["Content-Type"] = "application/json", ["X-Api-Key"] = key}, body)
end
