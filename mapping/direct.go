package mapping

// Direct paths.
//
// The general mapping scans a label against every rule first, then
// decodes, checks and re-encodes its parts in further passes, so that each
// rule lives in one place and errors come out in rule order. The functions
// here map the commonest labels in one pass that decodes as it writes.
// Each accepts only a subset of the input that every rule lets through,
// described at the function, and reports ok == false for anything else,
// errors included: the general path then decides. So the direct paths add
// speed, never behaviour; FuzzDirect holds them to the general path and
// FuzzReference holds both to an independent implementation of SPEC.

// The octets of BODY that RCHAR also holds.
var setBodyRChar = setBody.intersect(setRChar)

// Octets the direct paths copy as they are.
var (
	// A ContentType: body: lower-case RCHAR that a URI body holds as it
	// is (R1.2, U7): letters, digits and - . _ ~ ! $ & ' * +.
	tabDirectType = *setBodyRChar.Without("%ABCDEFGHIJKLMNOPQRSTUVWXYZ").table()
	// A query name: TCHAR that a query name holds as it is (R1.4, U8).
	tabDirectName = *setTChar.intersect(setQueryName).Without("%").table()
)

// Tables of appendDecodedRepair.
var (
	tabBody = *setBody.table()
	// Also the octets of a query value that R1.4 copies into a
	// quoted-string: none of them needs a backslash.
	tabQueryValue = *setQueryValue.table()
	tabFragment   = *setFragment.table()
	tabNone       byteTable
	// K0.3, K0.4: '?' and '#' in a decoded base URI are errors or call for
	// the general path's care.
	tabBodyFail = *NewByteSet("?#").table()
	// A uri. subtype (K1) ends at the first octet outside RCHAR; until
	// then the octets of BODY in RCHAR are kept.
	tabBodyRChar = *setBodyRChar.table()
	tabNotRChar  = func() (t byteTable) {
		for c := range t {
			t[c] = !tabRChar[c]
		}
		return t
	}()
)
