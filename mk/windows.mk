# Cross-compile and link the extensions for x86_64 Windows (MinGW-w64, UCRT) against CPython's Windows
# headers; see scripts/check_windows_build.sh. Nothing is run: that needs a Windows CPython.
.PHONY: check-windows

WINDOWS_CHECK_ARGS ?= _capture _capture_helpers_c _fastframe mcp._server_c mcp._wire_c mcp._validate_c

check-windows: $(STAMP)
	bash scripts/check_windows_build.sh $(WINDOWS_CHECK_ARGS)
