// The folders under a home directory a sandboxed command still sees (read-only): where version
// managers install compilers and runtimes, and the package caches builds read. Everything else in
// the home is hidden, so this list names folders that hold programs and downloaded packages, never
// a folder that holds credentials; where a tool keeps both in one folder, only the package parts
// are listed (~/.cargo/credentials.toml, ~/.gradle/gradle.properties, ~/.m2/settings.xml stay
// hidden). Left out on purpose: ~/.ssh, ~/.gnupg, ~/.aws, ~/.azure, ~/.kube, ~/.docker, ~/.config
// (gh, gcloud, git credentials), ~/.local/share (keyrings), ~/.netrc, ~/.npmrc, ~/.pypirc,
// ~/.git-credentials, and ~/.gitconfig (its `url.*.insteadOf` and `http.extraHeader` can carry
// tokens; git runs without it, and a sandboxed command cannot commit anyway: .git is read-only).
// Whole ~/.cache is left out too: ~/.cache/huggingface/token and browser caches live there.

/** Relative to the home directory. */
export const HOME_TOOLCHAIN_FOLDERS: readonly string[] = [
  // Node.js version managers and package caches.
  ".nvm",
  ".volta",
  ".fnm",
  ".local/share/fnm",
  ".npm",
  ".yarn/berry/cache",
  ".cache/yarn",
  ".local/share/pnpm",
  ".cache/node-gyp",
  ".cache/ms-playwright",
  ".cache/puppeteer",
  ".bun/bin",
  ".bun/install/cache",
  ".deno/bin",
  // Rust.
  ".rustup",
  ".cargo/bin",
  ".cargo/registry",
  ".cargo/git",
  // Python.
  ".pyenv",
  ".local/bin",
  ".local/lib",
  ".cache/pip",
  ".cache/uv",
  ".cache/pypoetry",
  // Go.
  "go/bin",
  "go/pkg/mod",
  ".cache/go-build",
  // JVM.
  ".sdkman/candidates",
  ".gradle/caches",
  ".gradle/wrapper",
  ".m2/repository",
  // Several languages.
  ".asdf/installs",
  ".asdf/shims",
  ".local/share/mise/installs",
  ".local/share/mise/shims",
  ".rbenv",
];
