// Command tlogwitness-interop is the independent side of quorate's C2SP tlog-witness
// interoperability test: a transparency log built only from Go's own implementations
// (golang.org/x/mod/sumdb/note for signed notes, github.com/transparency-dev/formats for
// checkpoints and cosignature/v1 verification, github.com/transparency-dev/merkle for the
// RFC 6962 tree and its consistency proofs).
//
//	tlogwitness-interop keygen -origin ORIGIN -skey FILE
//	    makes the log's Ed25519 note key, writes the private key to FILE (0600) and prints
//	    the verifier key (for `quorate node witness add-log`).
//	tlogwitness-interop run -url URL -origin ORIGIN -skey FILE -vkey LOG_VKEY -witness VKEY
//	    grows a log and asks the witness at URL to cosign each checkpoint; every cosignature
//	    must verify under the witness's vkey with Go's note verifier, and stale requests must
//	    get 409 with the cosigned size. Prints one JSON summary; exit 0 only if all checks
//	    hold.
package main

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/merkle/testonly"
	"golang.org/x/mod/sumdb/note"
)

func main() {
	if len(os.Args) < 2 {
		fail(errors.New("usage: tlogwitness-interop keygen|run ..."))
	}
	var err error
	switch os.Args[1] {
	case "keygen":
		err = keygen(os.Args[2:])
	case "run":
		err = run(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(1)
}

func keygen(args []string) error {
	fs := flag.NewFlagSet("keygen", flag.ExitOnError)
	origin := fs.String("origin", "", "log origin (also the key name)")
	skeyFile := fs.String("skey", "", "file for the private key")
	_ = fs.Parse(args)
	skey, vkey, err := note.GenerateKey(rand.Reader, *origin)
	if err != nil {
		return err
	}
	if err := os.WriteFile(*skeyFile, []byte(skey), 0o600); err != nil {
		return err
	}
	fmt.Println(vkey)
	return nil
}

type summary struct {
	Cosigned     int      `json:"cosigned"`
	Verified     int      `json:"verified"`
	Conflicts    int      `json:"conflicts"`
	Sizes        []uint64 `json:"sizes"`
	WitnessName  string   `json:"witness_name"`
	LastTimeUnix int64    `json:"last_timestamp"`
}

func run(args []string) error {
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	url := fs.String("url", "", "witness submission prefix, e.g. http://127.0.0.1:8080")
	origin := fs.String("origin", "", "log origin")
	skeyFile := fs.String("skey", "", "the log's private key file")
	logVkey := fs.String("vkey", "", "the log's verifier key (printed by keygen)")
	witnessVkey := fs.String("witness", "", "the witness's note verifier key")
	_ = fs.Parse(args)

	skey, err := os.ReadFile(*skeyFile)
	if err != nil {
		return err
	}
	signer, err := note.NewSigner(strings.TrimSpace(string(skey)))
	if err != nil {
		return err
	}
	lv, err := note.NewVerifier(*logVkey)
	if err != nil {
		return fmt.Errorf("log vkey: %w", err)
	}
	wv, err := fnote.NewVerifierForCosignatureV1(*witnessVkey)
	if err != nil {
		return fmt.Errorf("witness vkey: %w", err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	tree := testonly.New(rfc6962.DefaultHasher)
	sum := summary{WitnessName: wv.Name()}

	var cosigned uint64
	for _, size := range []uint64{5, 12, 12, 40} {
		for tree.Size() < size {
			tree.AppendData([]byte(fmt.Sprintf("leaf %d", tree.Size())))
		}
		cp := log.Checkpoint{Origin: *origin, Size: size, Hash: tree.HashAt(size)}
		signed, err := note.Sign(&note.Note{Text: string(cp.Marshal())}, signer)
		if err != nil {
			return err
		}
		var proof [][]byte
		if cosigned > 0 && cosigned < size {
			if proof, err = tree.ConsistencyProof(cosigned, size); err != nil {
				return err
			}
		}
		status, ctype, body, err := addCheckpoint(client, *url, cosigned, proof, signed)
		if err != nil {
			return err
		}
		if status != http.StatusOK {
			return fmt.Errorf("size %d from %d: status %d: %s", size, cosigned, status, body)
		}
		sum.Cosigned++
		// The response is signature lines: append them to the checkpoint and open it with
		// Go's note verifier, trusting the log and the witness.
		withCosig := append(append([]byte{}, signed...), body...)
		n, err := note.Open(withCosig, note.VerifierList(lv, wv))
		if err != nil {
			return fmt.Errorf("size %d: the cosigned note does not open: %w (%s)", size, err, ctype)
		}
		found := false
		for _, s := range n.Sigs {
			if s.Name == wv.Name() && s.Hash == wv.KeyHash() {
				ts, err := fnote.CoSigV1Timestamp(s)
				if err != nil {
					return err
				}
				if d := time.Since(ts); d < -time.Minute || d > time.Hour {
					return fmt.Errorf("cosignature timestamp %v is not now", ts)
				}
				sum.LastTimeUnix = ts.Unix()
				found = true
			}
		}
		if !found {
			return fmt.Errorf("size %d: no verified witness cosignature in %q", size, body)
		}
		sum.Verified++
		sum.Sizes = append(sum.Sizes, size)
		cosigned = size
	}

	// A stale old size: 409, text/x.tlog.size, the cosigned size in the body.
	cp := log.Checkpoint{Origin: *origin, Size: tree.Size(), Hash: tree.HashAt(tree.Size())}
	signed, err := note.Sign(&note.Note{Text: string(cp.Marshal())}, signer)
	if err != nil {
		return err
	}
	status, ctype, body, err := addCheckpoint(client, *url, 5, nil, signed)
	if err != nil {
		return err
	}
	if status != http.StatusConflict || ctype != "text/x.tlog.size" || string(body) != fmt.Sprintf("%d\n", cosigned) {
		return fmt.Errorf("stale request: got %d %q %q", status, ctype, body)
	}
	sum.Conflicts++
	return json.NewEncoder(os.Stdout).Encode(sum)
}

func addCheckpoint(c *http.Client, url string, old uint64, proof [][]byte, signed []byte) (int, string, []byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "old %d\n", old)
	for _, h := range proof {
		fmt.Fprintf(&b, "%s\n", base64.StdEncoding.EncodeToString(h))
	}
	b.WriteString("\n")
	b.Write(signed)
	resp, err := c.Post(strings.TrimSuffix(url, "/")+"/add-checkpoint", "text/plain", &b)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, resp.Header.Get("Content-Type"), body, err
}
