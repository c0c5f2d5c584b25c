package odcs

// PatternToRE2 is patternToRE2, for the tests.
var PatternToRE2 = patternToRE2
