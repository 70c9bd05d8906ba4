/* PMI-2 frame body grammar (the part after the 6-byte length field).
 *
 *   body  = "cmd=" name ";" *empty *pair
 *   pair  = key "=" value ";"  /  key ";"        (a bare key, tolerated)
 *         /  "=" value ";"                       (no key: an error, or skipped)
 *   value = *( any byte but ";"  /  ";;" )        (";;" only when escaping)
 *
 * Only the grammar lives here.  The host (codec/src/v2_body.rl) supplies the
 * actions: marks are offsets into the body, limits are enforced in actions,
 * and values are skipped with a vectorised scan (action vskip). */
%%{
machine pmi_v2;
include pmi_chars "pmi_chars.rl";

# After the first byte, runs of wordchars are skipped in one step ($wskip:
# the host jumps to the run's last byte), not one transition per byte.
v2_name = wordchar ( wordchar $wskip )*;

# Keys: canonical characters, or any other byte but '=' and ';' (noted).
v2_key_odd = ( any - wordchar - [=;] ) @key_odd;
v2_key = ( ( wordchar | v2_key_odd ) ( wordchar $wskip | v2_key_odd )* ) >key_start %key_end;

# An empty token: a ';' where a key should start.
v2_empty = ';' @empty_tok;

# Values with the draft's ';;' escape.  After a ';' the next byte decides:
# another ';' continues the value, anything else starts the next key.
v2_value_esc = ( ( any - ';' ) $vskip | ';' @vsemi ';' @vesc )*;
v2_pair_esc = v2_key ( '=' @val_start v2_value_esc ';' @vsemi | ';' @bare_end v2_empty* )
            | '=' @empty_key v2_value_esc ';' @vsemi;
v2_body_esc = 'cmd=' @name_mark v2_name ';' @name_end v2_empty* v2_pair_esc*;

# Values without escaping, as every real server reads them: a value ends at
# the first ';', and a following ';' is an empty token.
v2_value_raw = ( any - ';' )* $vskip;
v2_pair_raw = ( v2_key ( '=' @val_start v2_value_raw ';' @vsemi | ';' @bare_end )
              | '=' @empty_key v2_value_raw ';' @vsemi ) v2_empty*;
v2_body_raw = 'cmd=' @name_mark v2_name ';' @name_end v2_empty* v2_pair_raw*;
}%%
