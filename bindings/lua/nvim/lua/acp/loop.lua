-- SPDX-License-Identifier: Apache-2.0
-- Drives an acp client from Neovim's own event loop (libuv, vim.loop): a poll handle on
-- the client's descriptor and a timer for its timeout. Nothing blocks the editor: libuv
-- callbacks only schedule a poll on the main loop (vim.schedule), where buffers may be
-- changed, and the poll handle is stopped until then so a readable descriptor does not
-- spin the loop.
local loop = {}

-- Starts driving client; on_error(message) hears errors raised by handlers. Returns a
-- function that stops driving (call it before client:free()).
function loop.attach(client, on_error)
  local uv = vim.loop
  local poll = uv.new_poll(client:fd())
  local timer = uv.new_timer()
  local scheduled, stopped = false, false
  local on_readable

  local function pump()
    scheduled = false
    if stopped or client.freed then return end
    local ok, err = pcall(client.poll, client)
    if not ok and on_error then on_error(tostring(err)) end
    if stopped or client.freed then return end
    poll:start("r", on_readable)
    timer:stop()
    local timeout = client:timeout_ms()
    if timeout >= 0 then
      timer:start(timeout, 0, function()
        if not scheduled then
          scheduled = true
          vim.schedule(pump)
        end
      end)
    end
  end

  local function schedule()
    if scheduled or stopped then return end
    scheduled = true
    vim.schedule(pump)
  end

  on_readable = function(err)
    if err then return end
    poll:stop()
    schedule()
  end

  poll:start("r", on_readable)
  client.wakeup = schedule
  schedule()

  return function()
    if stopped then return end
    stopped = true
    client.wakeup = nil
    poll:stop()
    timer:stop()
    poll:close()
    timer:close()
  end
end

return loop
