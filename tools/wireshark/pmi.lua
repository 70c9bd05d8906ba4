-- Wireshark dissector for the PMI wire protocols on TCP (PMI_PORT mode):
-- PMI-1 lines ("cmd=name key=value ...\n", mcmd=spawn blocks ending at
-- "endcmd\n") and PMI-2 frames (6-byte length, then "cmd=name;key=value;...").
-- As pmi2-conform's codec does, each message is classified by its first
-- bytes: "cmd=" or "mcmd=" starts a PMI-1 line, anything else a PMI-2 frame.
-- Messages are reassembled across TCP segments.
--
--   tshark -X lua_script:pmi.lua -o pmi.tcp_port:PORT -r file.pcap -T fields -e pmi.cmd
--
-- The port is a preference (default 0: none) because PMI has no well-known
-- port; "Decode As... PMI" works as well.

local pmi = Proto("pmi", "Process Management Interface (PMI-1/PMI-2)")

local f_wire = ProtoField.string("pmi.wire", "Wire form")
local f_length = ProtoField.uint32("pmi.length", "Length field", base.DEC)
local f_cmd = ProtoField.string("pmi.cmd", "Command")
local f_key = ProtoField.string("pmi.key", "Key")
local f_value = ProtoField.string("pmi.value", "Value")
local f_junk = ProtoField.bytes("pmi.junk", "Bytes after the last ';'")
pmi.fields = { f_wire, f_length, f_cmd, f_key, f_value, f_junk }

local e_malformed = ProtoExpert.new("pmi.malformed", "Malformed PMI message",
    expert.group.MALFORMED, expert.severity.ERROR)
pmi.experts = { e_malformed }

pmi.prefs.tcp_port = Pref.uint("TCP port", 0, "TCP port of the PMI server (PMI_PORT); 0 = none")

local MAX_LINE = 65536

-- one pair "key=value" (or a bare key) into the tree
local function add_pair(tree, tvb, off, len)
    local text = tvb:range(off, len):string()
    local eq = text:find("=", 1, true)
    local sub = tree:add(pmi, tvb:range(off, len), "Pair: " .. text)
    if eq then
        sub:add(f_key, tvb:range(off, eq - 1), text:sub(1, eq - 1))
        if len - eq > 0 then
            sub:add(f_value, tvb:range(off + eq, len - eq), text:sub(eq + 1))
        else
            sub:add(f_value, tvb:range(off, len), "")
        end
    else
        sub:add(f_key, tvb:range(off, len), text)
    end
    return text
end

-- Split [off, off+len) at byte sep; calls fn(o, l) for every token.
local function tokens(tvb, off, len, sep, fn)
    local s = tvb:range(off, len):string()
    local start = 1
    while start <= #s do
        local stop = s:find(sep, start, true)
        if not stop then
            fn(off + start - 1, #s - start + 1, false)
            break
        end
        if stop > start then fn(off + start - 1, stop - start, true) end
        start = stop + 1
    end
end

local function set_cmd(pinfo, tree, tvb, o, l, text)
    local name = text:match("^m?cmd=(.*)$")
    if name then
        tree:add(f_cmd, tvb:range(o, l), name)
        return name
    end
    return nil
end

-- One PMI-1 message starting at off; returns its length, or a negative
-- "need more" count, or 0 when malformed.
local function v1_message(tvb, pinfo, tree, off, avail)
    local s = tvb:range(off, avail):string()
    local len
    if s:sub(1, 5) == "mcmd=" then
        local e = s:find("\nendcmd\n", 1, true)
        if not e then
            if avail > MAX_LINE then return 0 end
            return -DESEGMENT_ONE_MORE_SEGMENT
        end
        len = e + 7
    else
        local e = s:find("\n", 1, true)
        if not e then
            if avail > MAX_LINE then return 0 end
            return -DESEGMENT_ONE_MORE_SEGMENT
        end
        len = e
    end
    local t = tree:add(pmi, tvb:range(off, len), "PMI-1 message")
    t:add(f_wire, tvb:range(off, len), s:sub(1, 5) == "mcmd=" and "v1-mcmd" or "v1")
    local cmd
    local sep = s:sub(1, 5) == "mcmd=" and "\n" or " "
    tokens(tvb, off, len, sep, function(o, l)
        local text = tvb:range(o, l):string():gsub("[\r\n]+$", "")
        if #text == 0 or text == "endcmd" then return end
        if not cmd then
            cmd = set_cmd(pinfo, t, tvb, o, l, text)
            if cmd then return end
        end
        add_pair(t, tvb, o, #text)
    end)
    t:append_text(": " .. (cmd or "?"))
    return len, cmd
end

-- One PMI-2 frame at off.
local function v2_message(tvb, pinfo, tree, off, avail)
    if avail < 6 then return -(6 - avail) end
    local field = tvb:range(off, 6):string()
    local digits = field:match("^%s*(%d+)%s*$")
    if not digits then return 0 end
    local blen = tonumber(digits)
    if blen < 6 or blen > 999999 then return 0 end
    if avail < 6 + blen then return -(6 + blen - avail) end
    local t = tree:add(pmi, tvb:range(off, 6 + blen), "PMI-2 frame")
    t:add(f_wire, tvb:range(off, 6 + blen), "v2")
    t:add(f_length, tvb:range(off, 6), blen)
    local body = tvb:range(off + 6, blen):string()
    -- ";;" inside a value is an escaped ';' (the draft): keep it in the token
    local cmd
    local i, n, start = 1, #body, 1
    local last_end = 0
    while i <= n do
        local c = body:sub(i, i)
        if c == ";" then
            if body:sub(i + 1, i + 1) == ";" and body:sub(start, i - 1):find("=", 1, true) then
                i = i + 2
            else
                if i > start then
                    local o, l = off + 6 + start - 1, i - start
                    local text = body:sub(start, i - 1)
                    if not cmd then cmd = set_cmd(pinfo, t, tvb, o, l, text) end
                    if not (cmd and text == "cmd=" .. cmd) then add_pair(t, tvb, o, l) end
                end
                last_end = i
                start = i + 1
                i = i + 1
            end
        else
            i = i + 1
        end
    end
    if last_end < n then
        t:add(f_junk, tvb:range(off + 6 + last_end, n - last_end))
    end
    t:append_text(": " .. (cmd or "?"))
    return 6 + blen, cmd
end

function pmi.dissector(tvb, pinfo, tree)
    local total = tvb:len()
    local off = 0
    local cmds = {}
    pinfo.cols.protocol = "PMI"
    while off < total do
        local avail = total - off
        local head = tvb:range(off, math.min(5, avail)):string()
        local is_v1 = head:sub(1, 4) == "cmd=" or head == "mcmd="
        if not is_v1 and avail < 5 and (("cmd="):sub(1, #head) == head or ("mcmd="):sub(1, #head) == head) then
            pinfo.desegment_offset = off
            pinfo.desegment_len = DESEGMENT_ONE_MORE_SEGMENT
            return total
        end
        local len, cmd
        if is_v1 then
            len, cmd = v1_message(tvb, pinfo, tree, off, avail)
        else
            len, cmd = v2_message(tvb, pinfo, tree, off, avail)
        end
        if len < 0 then
            pinfo.desegment_offset = off
            pinfo.desegment_len = len == -DESEGMENT_ONE_MORE_SEGMENT and DESEGMENT_ONE_MORE_SEGMENT or -len
            break
        end
        if len == 0 then
            local t = tree:add(pmi, tvb:range(off, avail), "PMI (malformed)")
            t:add_proto_expert_info(e_malformed, "not a PMI-1 line or a PMI-2 frame")
            off = total
            break
        end
        if cmd then cmds[#cmds + 1] = cmd end
        off = off + len
    end
    if #cmds > 0 then
        pinfo.cols.info = table.concat(cmds, ", ")
    end
    return total
end

local registered = 0
function pmi.prefs_changed()
    local tcp = DissectorTable.get("tcp.port")
    if registered ~= 0 then tcp:remove(registered, pmi) end
    registered = pmi.prefs.tcp_port
    if registered ~= 0 then tcp:add(registered, pmi) end
end

-- "Decode As" without a port preference
DissectorTable.get("tcp.port"):add_for_decode_as(pmi)
