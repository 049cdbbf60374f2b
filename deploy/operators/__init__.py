"""The operator files of each deployment (JSON, read by shared/operators.py): a package so an installed build ships
the local default, demo.json."""
