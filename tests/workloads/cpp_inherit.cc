// cpp_inherit: a C++ target whose probed function takes a derived class,
// for uprobe args typed from DWARF through a base class.
//
//   cpp_inherit        calls describe(&sq) once; sq.id = 7, sq.side = 3
#include <cstdio>

struct Shape {
	int id;
	virtual ~Shape() {}
};

struct Square : Shape {
	long side;
};

__attribute__((noinline)) long describe(Square *s)
{
	return s->id + s->side;
}

int main()
{
	Square sq;

	sq.id = 7;
	sq.side = 3;
	std::printf("%ld\n", describe(&sq));
	return 0;
}
