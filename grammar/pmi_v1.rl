/* PMI-1 grammars: the one-line commands and the multi-line mcmd block.
 *
 *   line  = "cmd=" name *( 1*SP token ) *SP [CR] LF
 *   token = key [ "=" value ]          (values end at SP, CR or LF)
 *   mcmd  = "mcmd=" name [CR] LF *( key "=" mvalue [CR] LF ) "endcmd" [CR] LF
 *
 * The line or block is delimited in C before these machines run; the host
 * (codec/src/v1_body.rl) supplies the actions. */
%%{
machine pmi_v1;
include pmi_chars "pmi_chars.rl";

# After the first byte, runs of wordchars are skipped in one step ($wskip:
# the host jumps to the run's last byte), not one transition per byte.
v1_name = wordchar ( wordchar $wskip )* %name_end;

v1_key_odd = ( any - wordchar - [ =\r\n] ) @key_odd;
v1_key = ( ( wordchar | v1_key_odd ) ( wordchar $wskip | v1_key_odd )* ) >key_start %key_end;

# Raw values, as Hydra 4.0 and Slurm read them.
v1_value_raw = ( any - [ \r\n] )* $v1skip;
# MPICH >= 4.1 honours backslash escapes: "\ " is a space, "\\" a backslash.
v1_value_bs = ( ( any - [ \r\n\\] ) $v1skip | '\\' @v1esc_mark ( any - [\r\n] ) @v1esc )*;

v1_eol = ( '\r' @cr )? '\n' @eol;

v1_line_raw = 'cmd=' @name_mark v1_name
              ( ' '+ ( v1_key ( '=' @val_start v1_value_raw )? ) %tok_end )* ' '* v1_eol;
v1_line_bs = 'cmd=' @name_mark v1_name
              ( ' '+ ( v1_key ( '=' @val_start v1_value_bs )? ) %tok_end )* ' '* v1_eol;

# mcmd lines: values may hold spaces; a line is key=value.
mcmd_key = ( wordchar | ( any - wordchar - [=\r\n] ) @key_odd )+ >key_start %key_end;
mcmd_line = mcmd_key '=' @val_start ( any - [\r\n] )* $mskip ( '\r' @cr )? '\n' @mline_end;
mcmd_block = 'mcmd=' @name_mark v1_name ( '\r' @cr )? '\n' @mname_end
             mcmd_line* 'endcmd' ( '\r' @cr )? '\n' @eol;
}%%
