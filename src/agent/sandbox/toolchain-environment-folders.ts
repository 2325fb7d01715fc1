// Toolchains installed where the environment says (NVM_DIR=/work/.nvm, CARGO_HOME, JAVA_HOME, …)
// rather than in a home: the folders a command needs from each, bound read-only. A variable that
// names a folder holding credentials too lists only the package parts (CARGO_HOME's
// credentials.toml, GRADLE_USER_HOME's gradle.properties stay hidden).

/** Variable name, then the folders under it to show ("" for the whole folder). */
export const TOOLCHAIN_ENVIRONMENT_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  NVM_DIR: [""],
  VOLTA_HOME: [""],
  FNM_DIR: [""],
  PNPM_HOME: [""],
  BUN_INSTALL: ["bin", "install/cache"],
  DENO_INSTALL: ["bin"],
  PYENV_ROOT: [""],
  RUSTUP_HOME: [""],
  CARGO_HOME: ["bin", "registry", "git"],
  GOROOT: [""],
  // A list, as PATH is; each entry's bin and module cache.
  GOPATH: ["bin", "pkg/mod"],
  GOMODCACHE: [""],
  JAVA_HOME: [""],
  SDKMAN_DIR: ["candidates"],
  GRADLE_USER_HOME: ["caches", "wrapper"],
  ASDF_DATA_DIR: ["installs", "shims"],
  MISE_DATA_DIR: ["installs", "shims"],
  RBENV_ROOT: [""],
};
