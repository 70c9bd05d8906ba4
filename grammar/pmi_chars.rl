/* Character classes shared by the PMI-1 and PMI-2 grammars. */
%%{
machine pmi_chars;

# The draft's class for command names and canonical keys: [-_A-Za-z0-9].
wordchar = [A-Za-z0-9_\-];
}%%
