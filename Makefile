# The project's commands. Builds live under build/ (ignored by git).
#   make bench         install missing packages, build both MPIs (Release), run the benchmark report
#   make test          install missing packages, build and run every test on MPICH and Open MPI
#   make format        clang-format -i every C and C++ source and header
#   make format-check  fail if any C or C++ file is not formatted
#   make clean         remove build/
.PHONY: all bench test format format-check clean

FORMAT_DIRS := src include tests bench tools
FORMAT_FILES = $(shell find $(FORMAT_DIRS) -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) 2>/dev/null | sort)

all: test

bench:
	scripts/bench-report.sh

test:
	scripts/test.sh

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	clang-format --dry-run --Werror $(FORMAT_FILES)

clean:
	rm -rf build
