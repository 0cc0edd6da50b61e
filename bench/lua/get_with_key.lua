-- GET the URL's path with the provider key from PAYHUB_BENCH_KEY.
local key = os.getenv("PAYHUB_BENCH_KEY")
function request()
  return wrk.format("GET", nil, {["X-Api-Key"] = key})
end
