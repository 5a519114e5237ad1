-- Cases from kubernetes/apimachinery pkg/api/resource/quantity_test.go
-- @ cb59c81e909196fc91cfdf7f4cbacf8090438922 (as stored), mainly TestQuantityParse.
-- The same TestQuantityParse table and invalid list appear in kubernetes/kubernetes
-- staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go
-- @ db8b216c556cbd896ffb49a0a7bf13443230d18c.
--
-- TestQuantityParse also parses every table row with a leading "-" (expecting the
-- negated value) and with a leading "+" (expecting the same value); rows marked
-- "negated loop" / "plus loop" come from those two loops.
-- A few rows come from other tests in the same file that parse a string and pin its
-- value (named in src).
--
-- Each row: the input string, the exact decimal value the Go test expects (already
-- rounded up to a whole nano, as ParseQuantity does), and where it came from.
-- scheduler.quantity_milli / quantity_value round away from zero.
CREATE TEMP TABLE qcase(input text, exact numeric, src text);
INSERT INTO qcase VALUES
 -- TestQuantityParse: zeros
 ('0',     0, 'TestQuantityParse: zero'),
 ('0n',    0, 'TestQuantityParse: zero'),
 ('0u',    0, 'TestQuantityParse: zero'),
 ('0m',    0, 'TestQuantityParse: zero'),
 ('0Ki',   0, 'TestQuantityParse: zero'),
 ('0k',    0, 'TestQuantityParse: zero'),
 ('0Mi',   0, 'TestQuantityParse: zero'),
 ('0M',    0, 'TestQuantityParse: zero'),
 ('0Gi',   0, 'TestQuantityParse: zero'),
 ('0G',    0, 'TestQuantityParse: zero'),
 ('0Ti',   0, 'TestQuantityParse: zero'),
 ('0T',    0, 'TestQuantityParse: zero'),
 -- TestQuantityParse: quantity-less numbers
 ('1',     1, 'TestQuantityParse: no suffix'),
 -- TestQuantityParse: binary suffixes
 ('1Ki',   1024,             'TestQuantityParse: binary suffix'),
 ('8Ki',   8192,             'TestQuantityParse: binary suffix'),
 ('7Mi',   7340032,          'TestQuantityParse: binary suffix'),
 ('6Gi',   6442450944,       'TestQuantityParse: binary suffix'),
 ('5Ti',   5497558138880,    'TestQuantityParse: binary suffix'),
 ('4Pi',   4503599627370496, 'TestQuantityParse: binary suffix'),
 ('10Ti',  10995116277760,   'TestQuantityParse: binary suffix'),
 ('100Ti', 109951162777600,  'TestQuantityParse: binary suffix'),
 -- TestQuantityParse: decimal suffixes
 ('5n',    0.000000005,      'TestQuantityParse: decimal suffix'),
 ('4u',    0.000004,         'TestQuantityParse: decimal suffix'),
 ('3m',    0.003,            'TestQuantityParse: decimal suffix'),
 ('9',     9,                'TestQuantityParse: decimal suffix'),
 ('8k',    8000,             'TestQuantityParse: decimal suffix'),
 ('50k',   50000,            'TestQuantityParse: decimal suffix'),
 ('7M',    7000000,          'TestQuantityParse: decimal suffix'),
 ('6G',    6000000000,       'TestQuantityParse: decimal suffix'),
 ('5T',    5000000000000,    'TestQuantityParse: decimal suffix'),
 ('40T',   40000000000000,   'TestQuantityParse: decimal suffix'),
 ('300T',  300000000000000,  'TestQuantityParse: decimal suffix'),
 ('2P',    2000000000000000, 'TestQuantityParse: decimal suffix'),
 -- TestQuantityParse: decimal exponents (and "nonstandard but still parsable")
 ('1E-3',  0.001,            'TestQuantityParse: decimal exponent'),
 ('1e3',   1000,             'TestQuantityParse: decimal exponent'),
 ('1E6',   1000000,          'TestQuantityParse: decimal exponent'),
 ('1e9',   1000000000,       'TestQuantityParse: decimal exponent'),
 ('1E12',  1000000000000,    'TestQuantityParse: decimal exponent'),
 ('1e15',  1000000000000000, 'TestQuantityParse: decimal exponent'),
 ('1e14',  100000000000000,  'TestQuantityParse: nonstandard'),
 ('1e13',  10000000000000,   'TestQuantityParse: nonstandard'),
 ('100.035k', 100035,        'TestQuantityParse: nonstandard'),
 -- TestQuantityParse: things that look like floating point
 ('0.001',    0.001,         'TestQuantityParse: floating point'),
 ('0.0005k',  0.5,           'TestQuantityParse: floating point'),
 ('0.005',    0.005,         'TestQuantityParse: floating point'),
 ('0.05',     0.05,          'TestQuantityParse: floating point'),
 ('0.5',      0.5,           'TestQuantityParse: floating point'),
 ('0.00050k', 0.5,           'TestQuantityParse: floating point'),
 ('0.00500',  0.005,         'TestQuantityParse: floating point'),
 ('0.05000',  0.05,          'TestQuantityParse: floating point'),
 ('0.50000',  0.5,           'TestQuantityParse: floating point'),
 ('0.5e0',    0.5,           'TestQuantityParse: floating point'),
 ('0.5e-1',   0.05,          'TestQuantityParse: floating point'),
 ('0.5e-2',   0.005,         'TestQuantityParse: floating point'),
 ('10.035M',  10035000,      'TestQuantityParse: floating point'),
 ('1.2e3',    1200,             'TestQuantityParse: floating point'),
 ('1.3E+6',   1300000,          'TestQuantityParse: floating point'),
 ('1.40e9',   1400000000,       'TestQuantityParse: floating point'),
 ('1.53E12',  1530000000000,    'TestQuantityParse: floating point'),
 ('1.6e15',   1600000000000000, 'TestQuantityParse: floating point'),
 ('9.01',         9.01,             'TestQuantityParse: floating point'),
 ('8.1k',         8100,             'TestQuantityParse: floating point'),
 ('7.123456M',    7123456,          'TestQuantityParse: floating point'),
 ('6.987654321G', 6987654321,       'TestQuantityParse: floating point'),
 ('5.444T',       5444000000000,    'TestQuantityParse: floating point'),
 ('40.1T',        40100000000000,   'TestQuantityParse: floating point'),
 ('300.2T',       300200000000000,  'TestQuantityParse: floating point'),
 ('2.5P',         2500000000000000, 'TestQuantityParse: floating point'),
 -- TestQuantityParse: things that saturate/round (rounded up to a whole nano)
 ('3.001n',        0.000000004, 'TestQuantityParse: rounds up to nano'),
 ('1.1E-9',        0.000000002, 'TestQuantityParse: rounds up to nano'),
 ('0.0000000001',  0.000000001, 'TestQuantityParse: rounds up to nano'),
 ('0.0000000005',  0.000000001, 'TestQuantityParse: rounds up to nano'),
 ('0.00000000050', 0.000000001, 'TestQuantityParse: rounds up to nano'),
 ('0.5e-9',        0.000000001, 'TestQuantityParse: rounds up to nano'),
 ('0.9n',          0.000000001, 'TestQuantityParse: rounds up to nano'),
 ('0.00000012345', 0.000000124, 'TestQuantityParse: rounds up to nano'),
 ('0.00000012354', 0.000000124, 'TestQuantityParse: rounds up to nano'),
 -- TestQuantityParse: fractional binary
 ('100.035Ki', 102435.84,      'TestQuantityParse: fractional binary'),
 ('0.5Mi',     524288,         'TestQuantityParse: fractional binary'),
 ('0.05Gi',    53687091.2,     'TestQuantityParse: fractional binary'),
 ('0.025Ti',   27487790694.4,  'TestQuantityParse: fractional binary'),
 -- TestQuantityParse: things written by trolls
 ('0.000000000001Ki', 0.000000002, 'TestQuantityParse: trolls'),
 ('.001',   0.001,      'TestQuantityParse: trolls'),
 ('.0001k', 0.1,        'TestQuantityParse: trolls'),
 ('1.',     1,          'TestQuantityParse: trolls'),
 ('1.G',    1000000000, 'TestQuantityParse: trolls'),
 -- TestQuantityParse: negated loop ("-" + input, expects the negated value)
 ('-0',               0,                 'TestQuantityParse: negated loop'),
 ('-1',               -1,                'TestQuantityParse: negated loop'),
 ('-1Ki',             -1024,             'TestQuantityParse: negated loop'),
 ('-4Pi',             -4503599627370496, 'TestQuantityParse: negated loop'),
 ('-5n',              -0.000000005,      'TestQuantityParse: negated loop'),
 ('-3m',              -0.003,            'TestQuantityParse: negated loop'),
 ('-1.3E+6',          -1300000,          'TestQuantityParse: negated loop'),
 ('-0.5',             -0.5,              'TestQuantityParse: negated loop'),
 ('-9.01',            -9.01,             'TestQuantityParse: negated loop'),
 ('-2.5P',            -2500000000000000, 'TestQuantityParse: negated loop'),
 ('-3.001n',          -0.000000004,      'TestQuantityParse: negated loop'),
 ('-0.00000012345',   -0.000000124,      'TestQuantityParse: negated loop'),
 ('-100.035Ki',       -102435.84,        'TestQuantityParse: negated loop'),
 ('-0.05Gi',          -53687091.2,       'TestQuantityParse: negated loop'),
 ('-0.025Ti',         -27487790694.4,    'TestQuantityParse: negated loop'),
 ('-0.000000000001Ki', -0.000000002,     'TestQuantityParse: negated loop'),
 ('-.001',            -0.001,            'TestQuantityParse: negated loop'),
 ('-1.G',             -1000000000,       'TestQuantityParse: negated loop'),
 -- TestQuantityParse: plus loop ("+" + input, expects the same value)
 ('+1Ki',      1024,        'TestQuantityParse: plus loop'),
 ('+100.035k', 100035,      'TestQuantityParse: plus loop'),
 ('+0.5e-2',   0.005,       'TestQuantityParse: plus loop'),
 ('+3.001n',   0.000000004, 'TestQuantityParse: plus loop'),
 ('+.0001k',   0.1,         'TestQuantityParse: plus loop'),
 ('+1.',       1,           'TestQuantityParse: plus loop'),
 -- TestQuantityParseEmit (input and its expected canonical string)
 ('1Mi',             1048576,     'TestQuantityParseEmit: 1Mi (TestQuantityValueSet also asserts Value()=1048576)'),
 ('1Gi',             1073741824,  'TestQuantityParseEmit: 1Gi'),
 ('1024Mi',          1073741824,  'TestQuantityParseEmit: emits 1Gi'),
 ('1000M',           1000000000,  'TestQuantityParseEmit: emits 1G'),
 ('.001Ki',          1.024,       'TestQuantityParseEmit: emits 1024m'),
 ('.000001Ki',       0.001024,    'TestQuantityParseEmit: emits 1024u'),
 ('.000000001Ki',    0.000001024, 'TestQuantityParseEmit: emits 1024n'),
 ('-.001Ki',         -1.024,      'TestQuantityParseEmit: negated, emits -1024m'),
 -- TestQuantityString: canonical strings and alternates parsed back to the same value
 ('300Mi',       314572800,     'TestQuantityString: canonical'),
 ('307200Ki',    314572800,     'TestQuantityString: alternate of 300Mi'),
 ('6Ki',         6144,          'TestQuantityString: canonical'),
 ('1001Gi',      1074815565824, 'TestQuantityString: canonical'),
 ('1025024Mi',   1074815565824, 'TestQuantityString: alternate of 1001Gi'),
 ('1Ti',         1099511627776, 'TestQuantityString: canonical'),
 ('1024Gi',      1099511627776, 'TestQuantityString: alternate of 1Ti'),
 ('5',           5,             'TestQuantityString: canonical'),
 ('5000m',       5,             'TestQuantityString: alternate of 5'),
 ('500m',        0.5,           'TestQuantityString: canonical'),
 ('1G',          1000000000,    'TestQuantityString: canonical'),
 ('0.001T',      1000000000,    'TestQuantityString: alternate of 1G'),
 ('1m',          0.001,         'TestQuantityString: canonical (TestMilliNewSet asserts MilliValue()=1)'),
 ('1000u',       0.001,         'TestQuantityString: alternate of 1m'),
 ('80m',         0.08,          'TestQuantityString: canonical'),
 ('1080m',       1.08,          'TestQuantityString: canonical'),
 ('1.08',        1.08,          'TestQuantityString: alternate of 1080m'),
 ('1080000000n', 1.08,          'TestQuantityString: alternate of 1080m'),
 ('300M',        300000000,     'TestQuantityString: canonical'),
 ('1T',          1000000000000, 'TestQuantityString: canonical'),
 ('1234567M',    1234567000000, 'TestQuantityString: canonical'),
 ('1234567m',    1234.567,      'TestQuantityString: canonical'),
 ('3k',          3000,          'TestQuantityString: canonical'),
 ('1025',        1025,          'TestQuantityString: canonical'),
 ('.001e12',     1000000000,    'TestQuantityString: alternate of 1e9'),
 ('1e-3',        0.001,         'TestQuantityString: canonical'),
 ('0.001e0',     0.001,         'TestQuantityString: alternate of 1e-3'),
 ('1e-9',        0.000000001,   'TestQuantityString: canonical'),
 ('1000e-12',    0.000000001,   'TestQuantityString: alternate of 1e-9'),
 ('80e-3',       0.08,          'TestQuantityString: canonical'),
 ('300e6',       300000000,     'TestQuantityString: canonical'),
 ('1e12',        1000000000000, 'TestQuantityString: canonical'),
 ('3e3',         3000,          'TestQuantityString: canonical'),
 ('00',          0,             'TestQuantityString: alternate of 0'),
 ('1n',          0.000000001,   'TestQuantityString: canonical'),
 ('80n',         0.00000008,    'TestQuantityString: canonical'),
 ('1080n',       0.00000108,    'TestQuantityString: canonical'),
 ('1u',          0.000001,      'TestQuantityString: canonical'),
 ('80u',         0.00008,       'TestQuantityString: canonical'),
 ('1080u',       0.00108,       'TestQuantityString: canonical'),
 -- TestMilliNewSet (round trip asserts MilliValue) and TestNewSet (round trip asserts Value)
 ('1234',  1234,    'TestMilliNewSet: MilliValue()=1234000'),
 ('1k',    1000,    'TestNewSet: Value()=1000'),
 ('1234k', 1234000, 'TestNewSet: Value()=1234000'),
 ('1e6',   1000000, 'TestNewSet: Value()=1000000'),
 -- TestQuantityCmp / TestQuantityAddZeroPreservesSuffix
 ('100m',  0.1,          'TestQuantityCmp'),
 ('50m',   0.05,         'TestQuantityCmp'),
 ('100Gi', 107374182400, 'TestQuantityCmp'),
 -- TestStringQuantityAsApproximateFloat64
 ('2Ki',   2048,       'TestStringQuantityAsApproximateFloat64'),
 ('1.1Ki', 1126.4,     'TestStringQuantityAsApproximateFloat64'),
 ('2Gi',   2147483648, 'TestStringQuantityAsApproximateFloat64');

-- every valid case: milli and value agree with the exact value from the Go table
SELECT input, exact,
       scheduler.quantity_milli(input) AS milli,
       scheduler.quantity_value(input) AS value,
       scheduler.quantity_milli(input) = ceil(abs(exact)*1000)*sign(exact) AS milli_ok,
       scheduler.quantity_value(input) = ceil(abs(exact))*sign(exact) AS value_ok
FROM qcase ORDER BY src, input;

-- summary: should report zero failures
SELECT count(*) AS cases,
       count(*) FILTER (WHERE scheduler.quantity_milli(input) <> ceil(abs(exact)*1000)*sign(exact)) AS milli_failures,
       count(*) FILTER (WHERE scheduler.quantity_value(input) <> ceil(abs(exact))*sign(exact)) AS value_failures
FROM qcase;

-- Valid inputs whose milli value does not fit in int64: quantity_milli must raise 22023 (out of range).
-- TestQuantityParse
SELECT scheduler.quantity_milli('3Ei');
SELECT scheduler.quantity_milli('1E');
SELECT scheduler.quantity_milli('1E18');
SELECT scheduler.quantity_milli('1.7E18');
SELECT scheduler.quantity_milli('1.01E');
SELECT scheduler.quantity_milli('9Ei');
SELECT scheduler.quantity_milli('9223372036854775807Ki');
SELECT scheduler.quantity_milli('12E');
SELECT scheduler.quantity_milli('-1E');
SELECT scheduler.quantity_milli('-9Ei');
-- TestQuantityCmp
SELECT scheduler.quantity_milli('10000T');
-- TestParseQuantity
SELECT scheduler.quantity_milli('999999999999999999');
SELECT scheduler.quantity_milli('-999999999999999999');
SELECT scheduler.quantity_milli('9223372036854775807');
SELECT scheduler.quantity_milli('-9223372036854775808');

-- Those same large inputs still have a unit value that fits in int64.
CREATE TEMP TABLE qbig(input text, exact numeric, src text);
INSERT INTO qbig VALUES
 ('3Ei',                   3458764513820540928,  'TestQuantityParse: binary suffix'),
 ('1E',                    1000000000000000000,  'TestQuantityParse: decimal suffix'),
 ('1E18',                  1000000000000000000,  'TestQuantityParse: decimal exponent'),
 ('1.7E18',                1700000000000000000,  'TestQuantityParse: floating point'),
 ('1.01E',                 1010000000000000000,  'TestQuantityParse: floating point'),
 ('-1E',                   -1000000000000000000, 'TestQuantityParse: negated loop'),
 ('10000T',                10000000000000000,    'TestQuantityCmp'),
 ('999999999999999999',    999999999999999999,   'TestParseQuantity: max 18 digits'),
 ('-999999999999999999',   -999999999999999999,  'TestParseQuantity: min 18 digits'),
 ('1000000000000000000',   1000000000000000000,  'TestParseQuantity: 19 digits'),
 ('-1000000000000000000',  -1000000000000000000, 'TestParseQuantity: 19 digits'),
 ('9223372036854775806',   9223372036854775806,  'TestParseQuantity: max int64 - 1'),
 ('9223372036854775807',   9223372036854775807,  'TestParseQuantity: max int64'),
 ('-9223372036854775807',  -9223372036854775807, 'TestParseQuantity: min int64 + 1'),
 ('-9223372036854775808',  -9223372036854775808, 'TestParseQuantity: min int64');
SELECT input, exact,
       scheduler.quantity_value(input) AS value,
       scheduler.quantity_value(input) = exact AS value_ok
FROM qbig ORDER BY src, input;

-- Deliberate difference: ParseQuantity caps a value above 2^63-1 units at
-- 2^63-1 (TestQuantityParse expects 9Ei and 9223372036854775807Ki to read as
-- 9223372036854775807).  A request or allocatable that large is a mistake,
-- and a capped number would be a silent wrong value, so here it is an error.
SELECT scheduler.quantity_value('9Ei');
SELECT scheduler.quantity_value('9223372036854775807Ki');
SELECT scheduler.quantity_value('-9Ei');

-- Valid inputs whose unit value does not fit in int64 either: quantity_value must raise 22023 (out of range).
-- TestQuantityParse
SELECT scheduler.quantity_value('12E');
SELECT scheduler.quantity_value('-12E');
-- TestParseQuantity
SELECT scheduler.quantity_value('9999999999999999999');
SELECT scheduler.quantity_value('-9999999999999999999');
SELECT scheduler.quantity_value('10E');
SELECT scheduler.quantity_value('-10E');
SELECT scheduler.quantity_value('10000000000000000000');
SELECT scheduler.quantity_value('-10000000000000000000');
SELECT scheduler.quantity_value('9223372036854775808');
SELECT scheduler.quantity_value('-9223372036854775809');

-- Invalid inputs: each must raise 22023 invalid quantity "<input>".
-- TestQuantityParse: empty string
SELECT scheduler.quantity_value('');
-- TestQuantityParse: invalid list
SELECT scheduler.quantity_value('1.1.M');
SELECT scheduler.quantity_value('1+1.0M');
SELECT scheduler.quantity_value('0.1mi');
SELECT scheduler.quantity_value('0.1am');
SELECT scheduler.quantity_value('aoeu');
SELECT scheduler.quantity_value('.5i');
SELECT scheduler.quantity_value('1i');
SELECT scheduler.quantity_value('-3.01i');
SELECT scheduler.quantity_value('-3.01e-');
-- TestQuantityParse: leading/trailing whitespace is forbidden
SELECT scheduler.quantity_value(' 1');
SELECT scheduler.quantity_value('1 ');
-- TestQuantityParseNonNumericPanic (MustParse panics)
SELECT scheduler.quantity_value('Non-Numeric');
-- TestQuantityValueSet (Set returns a parse error)
SELECT scheduler.quantity_value('invalid');
