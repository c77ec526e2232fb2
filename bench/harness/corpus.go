package harness

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// CorpusDoc is one document of the corpus: a file, or a folder whose
// entry is openapi.yaml.
type CorpusDoc struct {
	Name string // the file's name without its extension, or the folder's
	Path string // the file, or the folder's openapi.yaml
	Size int64  // bytes, every file of a folder counted
	// Folder is set for a document split over the files of a folder;
	// Files is how many files are under it (1 for a single file).
	Folder bool
	Files  int
}

// ListCorpus lists the documents of the corpus folder dir, in the order
// of their names.
func ListCorpus(dir string) ([]CorpusDoc, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var docs []CorpusDoc
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		ext := filepath.Ext(e.Name())
		switch {
		case !e.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json"):
			st, err := e.Info()
			if err != nil {
				return nil, err
			}
			docs = append(docs, CorpusDoc{Name: strings.TrimSuffix(e.Name(), ext), Path: p, Size: st.Size(), Files: 1})
		case e.IsDir():
			entry := filepath.Join(p, "openapi.yaml")
			if _, err := os.Stat(entry); err != nil {
				continue
			}
			d := CorpusDoc{Name: e.Name(), Path: entry, Folder: true}
			err := filepath.WalkDir(p, func(_ string, de fs.DirEntry, err error) error {
				if err != nil || de.IsDir() {
					return err
				}
				st, err := de.Info()
				if err != nil {
					return err
				}
				d.Size += st.Size()
				d.Files++
				return nil
			})
			if err != nil {
				return nil, err
			}
			docs = append(docs, d)
		}
	}
	return docs, nil
}

// Largest returns the largest single-file document (by bytes) and the
// multi-file one read from the most files; false where the corpus has
// none of a kind.
func Largest(docs []CorpusDoc) (single, multi CorpusDoc, hasSingle, hasMulti bool) {
	for _, d := range docs {
		switch {
		case !d.Folder && (!hasSingle || d.Size > single.Size):
			single, hasSingle = d, true
		case d.Folder && (!hasMulti || d.Files > multi.Files || d.Files == multi.Files && d.Size > multi.Size):
			multi, hasMulti = d, true
		}
	}
	return single, multi, hasSingle, hasMulti
}
