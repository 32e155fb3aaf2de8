"""The contract gate (before generation): loading, request checks, directives, decision stages."""
