package main

import (
	"fmt"
	"io"
)

// exampleLabels names the mapping benchmarks' inputs as the README's
// table shows them: the draft's examples, by section.
var exampleLabels = map[string]string{
	"2.1-jpeg":      "§2.1 `image/JPEG`",
	"2.1-odd":       "§2.1 `x-FOO?bar/biZZare#sUb#tYpe`",
	"2.2-4params":   "§2.2 4 parameters",
	"2.2-tiff":      "§2.2 `image/tiff; application=faxbw`",
	"2.3-mailto":    "§2.3 `uri.mailto…`",
	"2.3-params":    "§2.3 `uri.http…` + 2 parameters",
	"2.3-fragment":  "§2.3 `uri.http…` + `URI-fragment`",
	"2.4-uri-body":  "§2.4 `URI-body`",
	"3.1-http":      "§3.1 `http://example.com/tag42`",
	"3.1-mailto":    "§3.1 `mailto:…?subject…&body…`",
	"3.1-fragment":  "§3.1 `xyz://…?h=ijk#lmn`",
	"3.2-model":     "§3.2 `ContentType:model/…`",
	"3.2-params":    "§3.2 `ContentType:text/plain?…`",
	"3.3-mime-type": "§3.3 `mailto:…?MIME-type…#123`",
}

func label(name string) string {
	if l, ok := exampleLabels[name]; ok {
		return l
	}
	return name
}

// mappingTable: each example mapped, beside mime.ParseMediaType +
// FormatMediaType on the same string and, for a URI, on the Content-Type
// it maps to (the same label); then the cost per byte of large inputs.
func mappingTable(w io.Writer, r results) error {
	var err error
	fmt.Fprintln(w, "| draft example | mapping | allocs | floor | mime, same string | ratio | mime, same label | ratio |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, fn := range []string{"ToURI", "ToContentType"} {
		for _, n := range r.names(fn) {
			m := r.get(&err, fn+"/"+n, "ns/op")
			allocs := r.get(&err, fn+"/"+n, "allocs/op")
			floor := r.get(&err, "ResultString/"+n, "ns/op")
			mime := r.get(&err, "MIMEParseFormat/"+n, "ns/op")
			same, sameRatio := "", ""
			if fn == "ToContentType" {
				s := r.get(&err, "MIMEParseFormatSameLabel/"+n, "ns/op")
				same, sameRatio = ns(s), ratio(s, m)
			}
			fmt.Fprintf(w, "| %s | %s | %.0f | %s | %s | %s | %s | %s |\n",
				label(n), ns(m), allocs, ns(floor), ns(mime), ratio(mime, m), same, sameRatio)
		}
	}
	fmt.Fprintln(w)
	for _, fn := range []string{"ToURI", "ToContentType"} {
		small := r.get(&err, "Size/"+fn+"/1KiB", "MB/s")
		large := r.get(&err, "Size/"+fn+"/1MiB", "MB/s")
		if err == nil {
			fmt.Fprintf(w, "`%s` per byte: %.1f ns at 1 KiB, %.1f ns at 1 MiB (1 MiB / 1 KiB: %.2f)\n",
				fn, 1000/small, 1000/large, small/large)
		}
	}
	return err
}

// urlencodedTable: each decoder and encoder on each data set, beside
// net/url's.
func urlencodedTable(w io.Writer, r results) error {
	var err error
	for _, t := range []struct{ title, a, b, base string }{
		{"decode", "Decode", "DecodeLegacy", "ParseQuery"},
		{"encode", "Encode", "EncodeLegacy", "ValuesEncode"},
	} {
		fmt.Fprintf(w, "| data set | `%s` | `%s` | %s | %s / %s, / %s |\n", t.a, t.b, t.base, t.base, t.a, t.b)
		fmt.Fprintln(w, "|---|---|---|---|---|")
		for _, n := range r.names(t.a) {
			cell := func(fn string) (float64, string) {
				v := r.get(&err, fn+"/"+n, "ns/op")
				return v, ns(v) + ", " + allocs(r.get(&err, fn+"/"+n, "allocs/op"))
			}
			a, ac := cell(t.a)
			b, bc := cell(t.b)
			base, basec := cell(t.base)
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s, %s |\n", n, ac, bc, basec, ratio(base, a), ratio(base, b))
		}
		fmt.Fprintln(w)
	}
	return err
}

// middlewareTable: each handler, and its cost over the bare handler of
// the same rounds; then the mapping calls alone.
func middlewareTable(w io.Writer, r results) error {
	var err error
	bare := r.get(&err, "Middleware/bare", "ns/op")
	fmt.Fprintln(w, "| benchmark | ns/op | allocs | over bare |")
	fmt.Fprintln(w, "| --- | ---: | ---: | --- |")
	for _, group := range []string{"Middleware", "MappingShare"} {
		for _, n := range r.names(group) {
			v := r.get(&err, group+"/"+n, "ns/op")
			allocs := r.get(&err, group+"/"+n, "allocs/op")
			over := ""
			if group == "Middleware" && n != "bare" {
				over = fmt.Sprintf("%+.0f ns", v-bare)
			}
			fmt.Fprintf(w, "| %s | %.0f | %.0f | %s |\n", n, v, allocs, over)
		}
	}
	return err
}

// mailhdrTable: each message rewritten, walked with this package's Walk
// and with go-message's, and copied, in MB/s.
func mailhdrTable(w io.Writer, r results) error {
	var err error
	fmt.Fprintln(w, "| message | rewrite | walk | gomessage-walk | copy | rewrite / gomessage-walk | walk / gomessage-walk | rewrite / copy | heap-B |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---:|")
	for _, n := range r.names("Mail") {
		b := "Mail/" + n + "/"
		rate := func(name string) (float64, string) {
			mbs := r.get(&err, b+name, "MB/s")
			return mbs, fmt.Sprintf("%.0f MB/s, %s", mbs, allocs(r.get(&err, b+name, "allocs/op")))
		}
		rw, rwCell := rate("rewrite")
		wk, wkCell := rate("walk")
		gm, gmCell := rate("gomessage-walk")
		cp := r.get(&err, b+"copy", "MB/s")
		fmt.Fprintf(w, "| %s | %s | %s | %s | %.0f MB/s | %.1fx | %.2fx | %.3f | %.0f |\n",
			n, rwCell, wkCell, gmCell, cp, rw/gm, wk/gm, rw/cp, r.get(&err, b+"rewrite", "heap-B"))
	}
	return err
}

func allocs(n float64) string {
	if n == 1 {
		return "1 alloc"
	}
	return fmt.Sprintf("%.0f allocs", n)
}
