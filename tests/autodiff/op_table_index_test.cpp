// Graph mode against eager mode in float64 over the op table's index ops (op_table.hpp): values,
// first and second derivatives (op_table_check.hpp).

#include "op_table_check.hpp"

TEST_CASE("op table, index ops: graph and eager agree in float64") {
    op_table::index_ops([](const auto& op) { op_table::check(op); });
}
