"""``python -m chunk_inspector``: the ``chunker`` command line, where console scripts are not on the PATH."""

from chunk_inspector.cli.commands import main

raise SystemExit(main())
