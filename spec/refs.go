package spec

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing/fstest"

	"go.yaml.in/yaml/v4"
)

// RefError is a $ref petctl will not follow: one that names a remote URL,
// leaves the folders a document may read, or names a file that is not there.
type RefError struct {
	File   string // the file that holds the $ref
	Line   int
	Ref    string
	Reason string
}

func (e *RefError) Error() string {
	return fmt.Sprintf("%s line %d: $ref %q %s", e.File, e.Line, e.Ref, e.Reason)
}

// uriScheme matches the scheme of an absolute URI ("https:", "file:"); a
// Windows drive letter is not one, but petctl runs where paths start with /.
var uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// reasonMissing begins the reason for a $ref to a file that is not there.
const reasonMissing = "names a file that does not exist"

// maxRefErrors bounds the list a refused document reports.
const maxRefErrors = 20

// documentFiles are the files of a document as checkRefs read them.
type documentFiles struct {
	names  []string // absolute, the entry first
	digest string   // of their names and contents (see digestFile)
	// read, where libopenapi must not read the files from the disk, holds
	// every file but the entry, and the entry too where a $ref names it by
	// its file, as libopenapi is to read them: keyed by the absolute path
	// without its leading /, each $ref inside an extension hidden (see
	// hideRefKeys). libopenapi then reads nothing else. It must where one
	// of those files holds a $ref inside an extension; otherwise read is
	// nil and the files are read from the disk, as libopenapi reads them
	// on demand: it indexes the files of a memory FS all at once, each
	// with a table of as many lines as the entry has, which took lago's
	// 517 files from 134 MB at start-up to 152.
	read *memoryFS
}

// memoryFS is a document's files in memory, as libopenapi reads them.
// fstest.MapFS, the standard library's in-memory file system, holds
// them; but it looks for a name that is no file by going through every
// file, and libopenapi asks for many such names (a relative $ref against
// several folders): lago's 517 files took 550 ms to read against 370 from
// the disk. So a name that is neither a file nor one of their folders is
// refused at once.
type memoryFS struct {
	files   fstest.MapFS
	folders map[string]bool
}

func (m *memoryFS) add(name string, data []byte) {
	m.files[name] = &fstest.MapFile{Data: data}
	for d := path.Dir(name); d != "." && !m.folders[d]; d = path.Dir(d) {
		m.folders[d] = true
	}
}

func (m *memoryFS) known(name string) bool {
	return name == "." || m.files[name] != nil || m.folders[name]
}

func (m *memoryFS) Open(name string) (fs.File, error) {
	if !m.known(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return m.files.Open(name)
}

func (m *memoryFS) Stat(name string) (fs.FileInfo, error) {
	if !m.known(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return m.files.Stat(name)
}

// checkRefs walks the files entry reaches through $ref before libopenapi
// reads any of them: a mock must not read a file outside the folders it was
// given, nor fetch a URL, because a document says so. Each refusal names the
// file, its line, the $ref and the reason; every one is reported at once.
// A $ref under an x- extension is not followed, in any file: petctl reads
// no extension that holds one, and a broken one must not stop start-up (see
// hideRefKeys); but a property or header named x-something is no
// extension, and its $ref is checked like any other.
func checkRefs(entry string, raw []byte, roots []string) (*documentFiles, error) {
	var errs []error
	files := &documentFiles{}
	inMemory := false // a file libopenapi parses from its bytes has a $ref hidden: it must read them from memory
	sum := sha256.New()
	seen := map[string]bool{entry: true}
	entryNamed := false
	queue := []string{entry}
	contents := map[string][]byte{entry: raw}
	reals := map[string]string{}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		data := contents[file]
		if data == nil {
			var err error
			if data, err = os.ReadFile(file); err != nil {
				// The $ref that named it was checked; reading can still fail.
				errs = append(errs, fmt.Errorf("%s: %w", file, unwrapPathError(err)))
				continue
			}
			contents[file] = data
		}
		files.names = append(files.names, file)
		digestFile(sum, entry, file, data)
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil {
			errs = append(errs, fmt.Errorf("%s: %s", file, oneLine(err.Error())))
			continue
		}
		var hidden []*yaml.Node
		walkRefs(&root, func(k, v *yaml.Node, extension bool) {
			if extension {
				hidden = append(hidden, k)
				return
			}
			target, reason := refTarget(file, v.Value, roots, reals)
			if reason != "" {
				errs = append(errs, &RefError{File: file, Line: v.Line, Ref: v.Value, Reason: reason})
				return
			}
			entryNamed = entryNamed || target == entry
			if target != "" && !seen[target] {
				seen[target] = true
				queue = append(queue, target)
			}
		})
		contents[file] = hideRefKeys(data, hidden)
		inMemory = inMemory || len(hidden) > 0 && file != entry
	}
	inMemory = inMemory || entryNamed && !bytes.Equal(contents[entry], raw)
	if inMemory {
		files.read = &memoryFS{files: fstest.MapFS{}, folders: map[string]bool{}}
		for _, file := range files.names {
			if file != entry || entryNamed {
				files.read.add(strings.TrimPrefix(file, "/"), contents[file])
			}
		}
	}
	if len(errs) > maxRefErrors {
		errs = append(errs[:maxRefErrors], fmt.Errorf("and %d more", len(errs)-maxRefErrors))
	}
	files.digest = hex.EncodeToString(sum.Sum(nil))
	return files, errors.Join(errs...)
}

// digestFile adds a file of a document to its digest: its name relative to
// the entry's folder (so that a moved folder keeps its digest) and its
// content, each preceded by its length.
func digestFile(sum hash.Hash, entry, file string, data []byte) {
	name, err := filepath.Rel(filepath.Dir(entry), file)
	if err != nil {
		name = file
	}
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(name)))
	sum.Write(n[:])
	sum.Write([]byte(filepath.ToSlash(name)))
	binary.BigEndian.PutUint64(n[:], uint64(len(data)))
	sum.Write(n[:])
	sum.Write(data)
}

// namedKeys are the keys whose map is keyed by names the document chooses
// (properties, headers, components): an x- key there is a name, such as a
// header x-request-id, not an extension.
var namedKeys = map[string]bool{
	"properties": true, "patternProperties": true, "$defs": true, "definitions": true, "dependentSchemas": true,
	"headers": true, "schemas": true, "parameters": true, "responses": true, "examples": true, "requestBodies": true,
	"securitySchemes": true, "links": true, "callbacks": true, "pathItems": true, "webhooks": true,
	"variables": true, "scopes": true, "mapping": true, "encoding": true, "content": true,
}

// keyKind is what the keys of a map are: OpenAPI's own fields (an x- key
// is an extension); the Components Object's, each field a map of names;
// names the document chooses (an x- key is a name); or names of a kind
// that never starts with x- in an object that takes extensions too (the
// Paths Object's /paths, an operation's Responses Object's statuses: an
// x- key there is an extension).
type keyKind int

const (
	ownKeys keyKind = iota
	componentKeys
	namedMapKeys
	namedOrExtensionKeys
)

// keysUnder is the kind of the keys of the map under key, in a map whose
// keys are of kind in.
func keysUnder(in keyKind, key string) keyKind {
	switch {
	case in == componentKeys:
		return namedMapKeys
	case in != ownKeys:
		return ownKeys // a name's value is one of OpenAPI's objects
	case key == "components":
		return componentKeys
	case key == "paths", key == "responses": // an operation's: the components' are names
		return namedOrExtensionKeys
	case namedKeys[key]:
		return namedMapKeys
	}
	return ownKeys
}

// walkRefs calls fn for the key and value of every $ref in n, saying
// whether it lies inside an x- extension: under an x- key where OpenAPI's
// own keys go, not under a property or a header named x-something.
func walkRefs(n *yaml.Node, fn func(k, v *yaml.Node, extension bool)) {
	walkRefsIn(n, ownKeys, false, fn)
}

// walkRefsIn is walkRefs for a node whose keys are of kind keys, or that
// lies inside an extension.
func walkRefsIn(n *yaml.Node, keys keyKind, extension bool, fn func(k, v *yaml.Node, extension bool)) {
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			walkRefsIn(c, ownKeys, extension, fn)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			ext := extension || keys != namedMapKeys && strings.HasPrefix(k.Value, "x-")
			if k.Value == "$ref" && v.Kind == yaml.ScalarNode {
				fn(k, v, ext)
				continue
			}
			if ext {
				walkRefsIn(v, ownKeys, true, fn)
				continue
			}
			walkRefsIn(v, keysUnder(keys, k.Value), false, fn)
		}
	}
}

// hiddenRefKey is what a $ref inside an x- extension is renamed to, so
// that libopenapi does not follow it where it lies in a schema
// (ExcludeExtensionRefs keeps such a $ref out of its index only): a broken
// one stopped start-up, and one leaving the document's folder was read.
// petctl reads no extension that holds a $ref.
const hiddenRefKey = "$ref (in an extension, not followed)"

// hideExtensionRefs renames the key of every $ref inside an x- extension
// of the document's tree that libopenapi parsed from the entry's bytes.
func hideExtensionRefs(root *yaml.Node) {
	walkRefs(root, func(k, _ *yaml.Node, extension bool) {
		if extension {
			k.Value = hiddenRefKey
		}
	})
}

// hideRefKeys renames the $ref keys in data, the text of a file, to
// hiddenRefKey: the other files of a document are parsed by libopenapi
// from their bytes (documentFiles.read), so their keys are renamed in the
// text, where keys lists them, each where the YAML parser found it. The
// lines stay as they are, so that libopenapi's messages name the right
// ones. A key written otherwise (escaped, say) is left as it is.
func hideRefKeys(data []byte, keys []*yaml.Node) []byte {
	if len(keys) == 0 {
		return data
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	// From the last: a key renamed moves those after it on its line.
	slices.SortFunc(keys, func(a, b *yaml.Node) int {
		return cmp.Or(cmp.Compare(b.Line, a.Line), cmp.Compare(b.Column, a.Column))
	})
	for _, k := range keys {
		if k.Line < 1 || k.Line > len(lines) {
			continue
		}
		line := lines[k.Line-1]
		at := runeOffset(line, k.Column-1)
		switch {
		case bytes.HasPrefix(line[at:], []byte("$ref")):
			line = slices.Concat(line[:at], []byte(strconv.Quote(hiddenRefKey)), line[at+len("$ref"):])
		case len(line) > at+len("$ref") && (line[at] == '"' || line[at] == '\'') && bytes.HasPrefix(line[at+1:], []byte("$ref")):
			line = slices.Concat(line[:at+1], []byte(hiddenRefKey), line[at+1+len("$ref"):])
		}
		lines[k.Line-1] = line
	}
	return bytes.Join(lines, nil)
}

// runeOffset is the byte offset of the column'th character of line (both
// from 0), as the YAML parser counts columns; len(line) past its end.
func runeOffset(line []byte, column int) int {
	for at := range string(line) {
		if column == 0 {
			return at
		}
		column--
	}
	return len(line)
}

// refTarget resolves ref, found in file, to the file it names ("" for a
// reference within the same file), or says why it is refused. reals
// keeps the real path of each file resolved so far ("" for a missing one).
func refTarget(file, ref string, roots []string, reals map[string]string) (target, reason string) {
	if strings.HasPrefix(ref, "#") || ref == "" {
		return "", ""
	}
	if uriScheme.MatchString(ref) {
		return "", "names a remote document; petctl reads only local files (download it beside the document and refer to it by a relative path)"
	}
	part, _, _ := strings.Cut(ref, "#")
	if p, err := url.PathUnescape(part); err == nil {
		part = p
	}
	if filepath.IsAbs(part) {
		target = filepath.Clean(part)
	} else {
		target = filepath.Join(filepath.Dir(file), part)
	}
	real, known := reals[target]
	if !known {
		// Once a file: a document of many files names the same ones
		// thousands of times, and each resolution reads every folder of
		// the path.
		var err error
		if real, err = filepath.EvalSymlinks(target); err != nil {
			real = ""
		}
		reals[target] = real
	}
	if real == "" {
		return "", reasonMissing + " (" + target + ")"
	}
	if !insideAny(real, roots) {
		return "", fmt.Sprintf("leaves the document's folder (%s resolves to %s); list the folder under refFolders to allow it", part, real)
	}
	return target, ""
}

func insideAny(path string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// refRoots are the folders a document at path may read: its own and those
// configured, each resolved through symbolic links.
func refRoots(path string, extra []string) ([]string, error) {
	var roots []string
	for _, d := range append([]string{filepath.Dir(path)}, extra...) {
		abs, err := filepath.Abs(d)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return nil, fmt.Errorf("ref folder %s: %w", d, unwrapPathError(err))
		}
		roots = append(roots, abs)
	}
	return roots, nil
}
