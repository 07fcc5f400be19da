# Sourced by the test-tool installers. `npm test` exports its own configuration and package
# variables (npm_config_user_agent says "node/v20 ..."); a nested `npm install` reads them as its
# own, and code-server's postinstall takes the Node major from that user agent. Nested installs
# run through `isolated_env [NAME=value ...] command ...`, with every such variable removed, so they
# behave exactly as when run by hand in a plain shell.
isolated_env() {
  local drop=() name
  while IFS= read -r name; do
    case "$name" in
      npm_config_*|npm_package_*|npm_lifecycle_*|npm_command|npm_execpath|npm_node_execpath|INIT_CWD|NODE) drop+=(-u "$name") ;;
    esac
  done < <(compgen -e)
  env "${drop[@]}" "$@"
}
