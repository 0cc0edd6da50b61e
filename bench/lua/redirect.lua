-- GET a short address on its short-link host, as a browser would (so each open counts).
--
-- One connection per thread, and each thread stops itself right after a response once its
-- time is up: nothing is left in flight, so the redirects counted here are exactly the
-- redirects the server sent. wrk's own duration (-d) is only a backstop, and its
-- Requests/sec divides by that, so done() prints the rate from each thread's own span.
-- PAYHUB_BENCH_HOST is the Host header, PAYHUB_BENCH_SECONDS the run time and
-- PAYHUB_BENCH_AGENT, if set, the User-Agent (a crawler's, to measure uncounted visits).
local host = os.getenv("PAYHUB_BENCH_HOST")
local seconds = tonumber(os.getenv("PAYHUB_BENCH_SECONDS"))
local agent = os.getenv("PAYHUB_BENCH_AGENT")
if agent == nil or agent == "" then
  agent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)"
    .. " Chrome/120.0.0.0 Safari/537.36"
end
local threads = {}

local function now_us()
  -- once at the start and once at the end of each thread: Lua's own clock has only seconds
  local clock = io.popen("date +%s%N")
  local ns = tonumber(clock:read("*l"))
  clock:close()
  return math.floor(ns / 1000)
end

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  redirects = 0
  other = 0
  deadline = os.time() + seconds
  started_us = now_us()
  span_us = 0
end

function request()
  return wrk.format("GET", nil, {["Host"] = host, ["User-Agent"] = agent})
end

function response(status, headers, body)
  if status == 302 then
    redirects = redirects + 1
  else
    other = other + 1
  end
  if os.time() >= deadline then
    span_us = now_us() - started_us
    wrk.thread:stop()
  end
end

function done(summary, latency, requests)
  local total, rate, others = 0, 0, 0
  for _, thread in ipairs(threads) do
    local n, span = thread:get("redirects"), thread:get("span_us")
    total = total + n
    others = others + thread:get("other")
    if span > 0 then
      rate = rate + n * 1000000 / span
    end
  end
  io.write(string.format("redirects: %d\n", total))
  io.write(string.format("not_redirects: %d\n", others))
  io.write(string.format("redirects_per_s: %d\n", math.floor(rate)))
end
