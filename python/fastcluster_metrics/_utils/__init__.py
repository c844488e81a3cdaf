"""What every other folder uses: parameter checks and their errors (``params.py``), the natural
order of labels (``natural.py``), the public name of a class (``public.py``), the memory this
process may still use (``memory.py``).

Imports nothing of the package.
"""
