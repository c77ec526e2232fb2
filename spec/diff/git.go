package diff

// The old document from git, for CI: `petctl diff --base-ref main NEW`
// compares NEW with the same file as the base branch has it.

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Bounds of reading a document from git.
const (
	gitTimeout = 30 * time.Second
	// maxArchiveBytes bounds the files extracted: the YAML and JSON
	// files of the document's folder, for its relative $refs.
	maxArchiveBytes = 64 << 20
)

// Checkout is a document as a git revision has it, in a temporary folder.
type Checkout struct {
	// Path is the document's copy; Name says where it came from ("main:api/openapi.yaml").
	Path, Name string
	dir        string
}

// Close removes the temporary folder.
func (c *Checkout) Close() error { return os.RemoveAll(c.dir) }

// AtRef copies the folder of the document at path (a file in a git work
// tree) as revision ref has it, so that the document and the files its
// relative $refs name can be read as they were.
func AtRef(ctx context.Context, ref, path string) (*Checkout, error) {
	if ref == "" || strings.HasPrefix(ref, "-") {
		return nil, fmt.Errorf("--base-ref %q: want a branch, tag or commit", ref)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(real, filepath.Base(abs))
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	top, err := git(ctx, filepath.Dir(abs), "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("--base-ref needs %s to be in a git work tree: %v", path, err)
	}
	root := strings.TrimSpace(string(top))
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("%s is outside the git work tree %s", path, root)
	}
	rel = filepath.ToSlash(rel)
	if _, err := git(ctx, root, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return nil, fmt.Errorf("--base-ref %s: no such branch, tag or commit in %s", ref, root)
	}
	files, err := documentFiles(ctx, root, ref, rel)
	if err != nil {
		return nil, fmt.Errorf("--base-ref %s: %v", ref, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("--base-ref %s: %s does not exist at %s", ref, rel, ref)
	}
	archive, err := git(ctx, root, append([]string{"archive", "--format=tar", ref, "--"}, files...)...)
	if err != nil {
		return nil, fmt.Errorf("--base-ref %s: %v", ref, err)
	}
	dir, err := os.MkdirTemp("", "petctl-diff-")
	if err != nil {
		return nil, err
	}
	c := &Checkout{Path: filepath.Join(dir, filepath.FromSlash(rel)), Name: ref + ":" + rel, dir: dir}
	if err := extract(archive, dir); err != nil {
		c.Close()
		return nil, fmt.Errorf("--base-ref %s: %v", ref, err)
	}
	if _, err := os.Stat(c.Path); err != nil {
		c.Close()
		return nil, fmt.Errorf("--base-ref %s: %s does not exist at %s", ref, rel, ref)
	}
	return c, nil
}

// documentFiles lists the files at ref that the document rel may be made
// of: itself, and the YAML and JSON files of its folder at any depth,
// bounded in total size, so that a document at the top of a large
// repository reads only what it can refer to.
func documentFiles(ctx context.Context, root, ref, rel string) ([]string, error) {
	dir := pathDir(rel)
	out, err := git(ctx, root, "ls-tree", "-r", "-l", "--full-name", ref, "--", dir)
	if err != nil {
		return nil, err
	}
	var files []string
	var total int64
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		meta, name, ok := strings.Cut(line, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 4 || fields[1] != "blob" {
			continue
		}
		if ext := strings.ToLower(filepath.Ext(name)); name != rel && ext != ".yaml" && ext != ".yml" && ext != ".json" {
			continue
		}
		size, err := strconv.ParseInt(fields[3], 10, 64)
		if err != nil {
			continue
		}
		if total += size; total > maxArchiveBytes {
			return nil, fmt.Errorf("the YAML and JSON files of %s hold more than %d MiB", dir, maxArchiveBytes>>20)
		}
		files = append(files, name)
	}
	return files, nil
}

func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// git runs git in dir and returns its output; the error is git's own
// first line.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if msg == "" {
			msg = err.Error()
		}
		return nil, errors.New(msg)
	}
	return out, nil
}

// extract writes the regular files of a tar archive under dir, refusing
// any name that would leave it, and at most maxArchiveBytes.
func extract(archive []byte, dir string) error {
	tr := tar.NewReader(bytes.NewReader(archive))
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		name := filepath.FromSlash(h.Name)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("the archive names %q, outside its folder", h.Name)
		}
		total += h.Size
		if total > maxArchiveBytes {
			return fmt.Errorf("the document's folder holds more than %d MiB", maxArchiveBytes>>20)
		}
		target := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, io.LimitReader(tr, h.Size))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
}
