"""`python -m core.cli`."""

from . import main

raise SystemExit(main())
